package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rosorin/rosorin/proofs/report"
)

// HistoryTolerance is how much a cell's worst run or bound may grow against the previous campaigns before the
// stop-performance monitor fails it: a value has grown when it is above the reference by more than Rel of
// the reference AND by more than Abs and the measurement's resolution (a time to still known to 1/110 s
// cannot be said to have grown by less).
type HistoryTolerance struct {
	Rel float64 `json:"rel"`
	Abs float64 `json:"abs"` // in the quantity's unit (s or m)
}

// DefaultHistoryTolerance is +10 %.
var DefaultHistoryTolerance = HistoryTolerance{Rel: 0.10}

func (t HistoryTolerance) String() string {
	s := "+" + strconv.FormatFloat(t.Rel*100, 'f', -1, 64) + " %"
	if t.Abs > 0 {
		s += " and +" + strconv.FormatFloat(t.Abs, 'f', -1, 64)
	}
	return s
}

// ParseHistoryTolerance reads "10%" or "10%,0.02" (the absolute part in the quantity's unit; an "s" or "m"
// suffix is allowed).
func ParseHistoryTolerance(s string) (HistoryTolerance, error) {
	rel, abs, err := report.ParseRelAbs(s, DefaultHistoryTolerance.Rel, DefaultHistoryTolerance.Abs, []string{"s", "m"}, true)
	if err != nil {
		return DefaultHistoryTolerance, fmt.Errorf("--tolerance %q: want a percentage and optionally an amount, e.g. 10%% or 10%%,0.02s", s)
	}
	return HistoryTolerance{Rel: rel, Abs: abs}, nil
}

// HistoryPoint is one campaign's figures for one cell's quantity.
type HistoryPoint struct {
	Campaign    string    `json:"campaign"`
	Start       time.Time `json:"start"`
	N           int       `json:"n"`
	Worst       Num       `json:"worst"`
	Bound       Num       `json:"bound"`
	Requirement Num       `json:"requirement"`
	Verdict     string    `json:"verdict"` // the cell's verdict in that campaign
	// RefWorst and RefBound: the median of the previous campaigns' (NaN for the first).
	RefWorst Num      `json:"ref_worst"`
	RefBound Num      `json:"ref_bound"`
	Findings []string `json:"findings,omitempty"`
}

// HistoryCell is one cell's quantity (time to still, or travel) over the campaigns.
type HistoryCell struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Unit     string         `json:"unit"`
	Points   []HistoryPoint `json:"points"`
	Verdict  string         `json:"verdict"` // the gate's, on the latest campaign
	Findings []string       `json:"findings,omitempty"`
}

// History is the stop-performance monitor's report (ANSI B11.1's stop-time monitor, for campaigns): each
// cell's worst run and tolerance bound over the campaigns, and the gate on the latest.
type History struct {
	Kind      string           `json:"kind"`
	Tolerance HistoryTolerance `json:"tolerance"`
	Rule      string           `json:"rule"`
	Campaigns []string         `json:"campaigns"`
	Cells     []HistoryCell    `json:"cells"`
	Verdict   string           `json:"verdict"`
}

// HistoryKind marks the monitor's JSON.
const HistoryKind = "rosorin.campaign.history"

// LoadHistory reads each source: a campaign folder (summarized here) or a summary JSON (stopproof report
// --campaign --json). Several shards of one campaign join with commas: "shard1,shard2".
func LoadHistory(sources ...string) ([]*Summary, []string, error) {
	if len(sources) < 1 {
		return nil, nil, errors.New("which campaigns? folders or summary JSON files, oldest first")
	}
	var sums []*Summary
	var names []string
	for _, src := range sources {
		parts := strings.Split(src, ",")
		st, err := os.Stat(parts[0])
		if err != nil {
			return nil, nil, err
		}
		var s *Summary
		if st.IsDir() {
			c, err := LoadCampaign(parts...)
			if err != nil {
				return nil, nil, err
			}
			s = Summarize(c, "")
		} else {
			b, err := readBounded(src, 256<<20)
			if err != nil {
				return nil, nil, err
			}
			if s, err = ReadSummary(src, b); err != nil {
				return nil, nil, err
			}
		}
		sums = append(sums, s)
		names = append(names, src)
	}
	return sums, names, nil
}

// Monitor judges the history: the summaries ordered by their first run's start (the order given where the
// same), each cell's worst and bound against the median of the previous campaigns', and the gate on the
// latest campaign: FAIL when its worst or bound is past the requirement, or has grown past the reference by
// more than tol, for any cell.
func Monitor(sums []*Summary, names []string, tol HistoryTolerance) *History {
	idx := make([]int, len(sums))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return sums[idx[a]].Start.Before(sums[idx[b]].Start) })
	h := &History{Kind: HistoryKind, Tolerance: tol, Verdict: Pass,
		Rule: fmt.Sprintf("the campaigns are ordered by their first run; the gate judges the latest: a cell fails when its worst run or its tolerance bound is past the requirement, or has grown past the median of the previous campaigns' by more than the tolerance (%s) and by more than the measurement's resolution", tol)}
	type key struct{ id, unit string }
	cells := map[key]*HistoryCell{}
	var order []key
	for _, i := range idx {
		s := sums[i]
		name := s.Name
		if names != nil && i < len(names) {
			name = names[i]
		}
		h.Campaigns = append(h.Campaigns, name)
		for _, cr := range s.Cells {
			for _, d := range cr.dists() {
				k := key{cr.ID, d.Unit}
				hc := cells[k]
				if hc == nil {
					hc = &HistoryCell{ID: cr.ID, Name: cellName(cr.Cell) + d.label(), Unit: d.Unit}
					cells[k] = hc
					order = append(order, k)
				}
				p := HistoryPoint{Campaign: name, Start: s.Start, N: cr.N, Worst: d.Worst, Bound: d.Bound, Requirement: d.Requirement, Verdict: cr.Verdict}
				var pw, pb []float64
				for _, q := range hc.Points {
					pw, pb = append(pw, float64(q.Worst)), append(pb, float64(q.Bound))
				}
				p.RefWorst, p.RefBound = Num(median(pw)), Num(median(pb))
				res := float64(d.Resolution)
				for _, v := range []struct {
					what     string
					val, ref Num
				}{{"worst", p.Worst, p.RefWorst}, {"bound", p.Bound, p.RefBound}} {
					val, ref := float64(v.val), float64(v.ref)
					switch {
					case math.IsNaN(val):
						if v.what == "bound" {
							p.Findings = append(p.Findings, "no bound (too few runs)")
						}
					case !(val <= float64(p.Requirement)) && !math.IsNaN(float64(p.Requirement)):
						p.Findings = append(p.Findings, fmt.Sprintf("the %s %s is past the requirement %s", v.what, withUnit(v.val, d.Unit), withUnit(p.Requirement, d.Unit)))
					case !math.IsNaN(ref) && !math.IsInf(ref, 0) && val > ref*(1+tol.Rel) && val-ref > math.Max(tol.Abs, res):
						p.Findings = append(p.Findings, fmt.Sprintf("the %s %s grew past the previous campaigns' median %s by %s (%+.0f %%), more than %s",
							v.what, withUnit(v.val, d.Unit), withUnit(v.ref, d.Unit), withUnit(Num(val-ref), d.Unit), (val/ref-1)*100, tol))
					}
				}
				hc.Points = append(hc.Points, p)
			}
		}
	}
	latest := ""
	if len(h.Campaigns) > 0 {
		latest = h.Campaigns[len(h.Campaigns)-1]
	}
	for _, k := range order {
		hc := cells[k]
		hc.Verdict = Pass
		last := hc.Points[len(hc.Points)-1]
		if last.Campaign != latest {
			hc.Findings = append(hc.Findings, "not in the latest campaign: not judged")
		} else {
			for _, f := range last.Findings {
				if f != "no bound (too few runs)" {
					hc.Verdict = Fail
					h.Verdict = Fail
				}
				hc.Findings = append(hc.Findings, f)
			}
		}
		h.Cells = append(h.Cells, *hc)
	}
	return h
}

func median(xs []float64) float64 {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}

// JSON writes the monitor's report as JSON.
func (h *History) JSON(w io.Writer) error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Text writes the gate's verdict lines (for a terminal).
func (h *History) Text(w io.Writer) {
	for _, hc := range h.Cells {
		for _, f := range hc.Findings {
			fmt.Fprintf(w, "%s: %s\n", hc.Name, f)
		}
	}
	fmt.Fprintf(w, "MONITOR: %s over %d campaigns (tolerance %s)\n", h.Verdict, len(h.Campaigns), h.Tolerance)
}

// historyPlot draws a cell's worst (solid) and bound (dashed) per campaign, with the requirement (red).
func historyPlot(hc HistoryCell) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = hc.Name
	p.Y.Label.Text = "time to still (s)"
	if hc.Unit == "m" {
		p.Y.Label.Text = "travel (m)"
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	var labels []string
	var worst, bound, req plotter.XYs
	ymax := 0.0
	for i, pt := range hc.Points {
		labels = append(labels, shortName(pt.Campaign))
		x := float64(i)
		for _, v := range []struct {
			val Num
			to  *plotter.XYs
		}{{pt.Worst, &worst}, {pt.Bound, &bound}, {pt.Requirement, &req}} {
			if f := float64(v.val); !math.IsNaN(f) && !math.IsInf(f, 0) {
				*v.to = append(*v.to, plotter.XY{X: x, Y: f})
				ymax = math.Max(ymax, f)
			}
		}
	}
	for _, s := range []struct {
		xy    plotter.XYs
		label string
		col   color.RGBA
		dash  []vg.Length
	}{{req, "requirement", colReq, nil}, {worst, "worst run", colData, nil}, {bound, "tolerance bound", colBound, []vg.Length{vg.Points(5), vg.Points(3)}}} {
		if len(s.xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes, pts.Color = s.col, vg.Points(1.5), s.dash, s.col
		p.Add(l, pts)
		p.Legend.Add(s.label, l, pts)
	}
	p.NominalX(labels...)
	p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.2, 0.1)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return p, nil
}

func shortName(s string) string {
	s = strings.TrimSuffix(strings.TrimRight(s, "/"), ".json")
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 24 {
		s = s[:24]
	}
	return s
}
