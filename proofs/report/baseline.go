package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rosorin/rosorin/judge/vibration"
)

// Tolerance is how much slower than the baseline a stop may get before it is a regression: a stop is a
// regression when it is later than the baseline by more than Rel of it AND by more than Abs. The defaults,
// 50 % and 0.15 s (docs/reports.md): "still from" moves on a 0.05 s grid and its 0.2 s windows make it
// late by up to 0.25 s; the sim's repeated runs of one path scatter by 0.05-0.10 s on a loaded machine, so
// the absolute part keeps a 0.25 s stop from flagging at 0.40 s, and the relative part keeps a slow path's
// ordinary scatter from flagging while a stop that got half again as slow does.
type Tolerance struct {
	Rel float64 // fraction of the baseline stop time
	Abs float64 // seconds
}

// DefaultTolerance is +50 % and +0.15 s.
var DefaultTolerance = Tolerance{Rel: 0.5, Abs: 0.15}

func (t Tolerance) String() string {
	return fmt.Sprintf("+%s %% and +%s s", strconv.FormatFloat(t.Rel*100, 'f', -1, 64), strconv.FormatFloat(t.Abs, 'f', -1, 64))
}

// ParseTolerance reads "50%,0.15s" (either part may be left out: "30%", "0.2s").
func ParseTolerance(s string) (Tolerance, error) {
	rel, abs, err := ParseRelAbs(s, DefaultTolerance.Rel, DefaultTolerance.Abs, []string{"s"}, false)
	if err != nil {
		return DefaultTolerance, fmt.Errorf("--tolerance %q: want a percentage and/or seconds, e.g. 50%%,0.15s", s)
	}
	return Tolerance{Rel: rel, Abs: abs}, nil
}

// ParseRelAbs reads a tolerance of a relative and an absolute part, "P%" and "A" joined by a comma: rel is P
// as a fraction, abs is A. A part left out keeps the value passed in. A takes one of units as its suffix, or
// none where bare is set. Both parts must be finite and not negative. The stop-path report's --tolerance and
// the campaign monitor's are read here.
func ParseRelAbs(s string, rel, abs float64, units []string, bare bool) (float64, float64, error) {
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if num, ok := strings.CutSuffix(f, "%"); ok {
			v, err := nonNegative(num)
			if err != nil {
				return rel, abs, err
			}
			rel = v / 100
			continue
		}
		num, ok := f, bare
		for _, u := range units {
			if n, cut := strings.CutSuffix(f, u); cut {
				num, ok = n, true
				break
			}
		}
		if !ok {
			return rel, abs, fmt.Errorf("%q: no unit (%s)", f, strings.Join(units, ", "))
		}
		v, err := nonNegative(num)
		if err != nil {
			return rel, abs, err
		}
		abs = v
	}
	return rel, abs, nil
}

// nonNegative parses a finite number not below zero.
func nonNegative(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%q: not a finite number of at least 0", s)
	}
	return v, nil
}

// Baseline is the committed reference (reports/baseline.json): each line's outcome and stop time.
type Baseline struct {
	// Note says where the baseline came from (the command and the commit).
	Note  string         `json:"note"`
	Lines []BaselineLine `json:"lines"`
}

// BaselineLine is one line of the baseline.
type BaselineLine struct {
	Key
	Outcome vibration.Outcome `json:"outcome"`
	StopS   *float64          `json:"stop_s"` // null when not a pass
}

// BaselineOf makes a baseline from runs: every line, the last run's where several runs have it.
func BaselineOf(runs []ProofFile, note string) Baseline {
	byKey := map[Key]BaselineLine{}
	var order []Key
	for _, run := range runs {
		for _, r := range run.Report.Results {
			k := KeyOf(r)
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			l := BaselineLine{Key: k, Outcome: r.Outcome}
			if r.Outcome == vibration.Pass && !math.IsNaN(r.StopS) {
				s := math.Round(r.StopS*1000) / 1000
				l.StopS = &s
			}
			byKey[k] = l
		}
	}
	b := Baseline{Note: note}
	for _, k := range order {
		b.Lines = append(b.Lines, byKey[k])
	}
	return b
}

// WriteBaseline writes b as indented JSON.
func WriteBaseline(w io.Writer, b Baseline) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// ReadBaseline parses a baseline.
func ReadBaseline(r io.Reader) (Baseline, error) {
	var b Baseline
	dec := json.NewDecoder(io.LimitReader(r, 64<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, fmt.Errorf("baseline: %w", err)
	}
	for i, l := range b.Lines {
		if l.Path == "" || l.Motion == "" {
			return b, fmt.Errorf("baseline line %d has no path or motion", i+1)
		}
		if l.StopS != nil && (math.IsNaN(*l.StopS) || *l.StopS < 0) {
			return b, fmt.Errorf("baseline line %d (%s): stop_s %v", i+1, l.Key, *l.StopS)
		}
	}
	return b, nil
}

// Comparison is the regression verdict of runs against a baseline.
type Comparison struct {
	Baseline  string
	Tolerance Tolerance
	// Regressions says which line regressed and by how much, one sentence each.
	Regressions []string
	// ByKey holds the regression of each key; Checked every key compared, in order.
	ByKey   map[Key]string
	Checked []Key
	// Notes: lines of the baseline not run now, lines not in the baseline.
	Notes []string
}

// Compare judges runs against b: a line that passed in the baseline and does not now, a passing stop later
// than the baseline beyond tol, or a new line (not in the baseline) that does not pass, is a regression.
func Compare(runs []ProofFile, b Baseline, name string, tol Tolerance) *Comparison {
	c := &Comparison{Baseline: name, Tolerance: tol, ByKey: map[Key]string{}}
	base := map[Key]BaselineLine{}
	for _, l := range b.Lines {
		base[l.Key] = l
	}
	seen := map[Key]bool{}
	for _, run := range runs {
		for _, r := range run.Report.Results {
			k := KeyOf(r)
			if !seen[k] {
				c.Checked = append(c.Checked, k)
			}
			seen[k] = true
			l, ok := base[k]
			var msg string
			switch {
			case !ok && r.Outcome != vibration.Pass:
				msg = fmt.Sprintf("%s: %s in %s and not in the baseline (%s)", k, r.Outcome, run.Name, r.Reason)
			case !ok:
				c.Notes = append(c.Notes, fmt.Sprintf("%s is not in the baseline (%s in %s): refresh it (reports/README.md)", k, cell(r), run.Name))
			case l.Outcome == vibration.Pass && r.Outcome != vibration.Pass:
				msg = fmt.Sprintf("%s: passed in the baseline (%s), now %s in %s: %s", k, stopStr(l.StopS), r.Outcome, run.Name, r.Reason)
			case l.Outcome == vibration.Pass && l.StopS != nil && !math.IsNaN(r.StopS):
				was, now := *l.StopS, r.StopS
				if now-was > tol.Abs+1e-9 && now-was > tol.Rel*was+1e-9 {
					msg = fmt.Sprintf("%s: stop %.2f s in %s, %.2f s in the baseline: +%.2f s (+%.0f %%), beyond %s", k, now, run.Name, was,
						now-was, (now-was)/was*100, tol)
				}
			case l.Outcome != vibration.Pass && r.Outcome == vibration.Pass:
				c.Notes = append(c.Notes, fmt.Sprintf("%s %s in the baseline, now PASS in %s: refresh the baseline if that is the fix", k, l.Outcome, run.Name))
			}
			if msg != "" {
				if _, dup := c.ByKey[k]; dup {
					c.ByKey[k] += "; " + msg
				} else {
					c.ByKey[k] = msg
				}
				c.Regressions = append(c.Regressions, msg)
			}
		}
	}
	var missing []string
	for _, l := range b.Lines {
		if !seen[l.Key] {
			missing = append(missing, l.Key.String())
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d baseline lines not run now: %s", len(missing), strings.Join(missing, ", ")))
	}
	return c
}

func stopStr(p *float64) string {
	if p == nil {
		return "no stop time"
	}
	return fmt.Sprintf("%.2f s", *p)
}

// Text writes the comparison for a log: "REGRESSION: ..." per regression, or "no regression".
func (c *Comparison) Text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "baseline %s (tolerance %s): ", c.Baseline, c.Tolerance)
	if len(c.Regressions) == 0 {
		fmt.Fprintf(&b, "no regression in %d lines\n", len(c.Checked))
	} else {
		fmt.Fprintf(&b, "%d REGRESSION(S) in %d lines\n", len(c.Regressions), len(c.Checked))
		for _, r := range c.Regressions {
			fmt.Fprintf(&b, "REGRESSION: %s\n", r)
		}
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
