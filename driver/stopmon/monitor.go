package stopmon

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// Modes (the driver configuration's stop_monitor).
const (
	ModeOff  = "off"  // stops are logged with their limits, never judged
	ModeWarn = "warn" // WARN and ERROR are shown; enable is never refused
	ModeHold = "hold" // an ERROR refuses enable until a person with the safety role acknowledges it
)

// DefaultMode is hold: docs/safety-case.md, "The stop-performance monitor (issue 35)", argues it.
const DefaultMode = ModeHold

// ParseMode checks a configured mode ("" is DefaultMode).
func ParseMode(s string) (string, error) {
	switch s {
	case "":
		return DefaultMode, nil
	case ModeOff, ModeWarn, ModeHold:
		return s, nil
	}
	return "", fmt.Errorf("stop_monitor %q: want off, warn or hold", s)
}

// Rules are the trend rules, per stop kind, over its counted stops since the start or the last Ack.
type Rules struct {
	// K of the last M counted stops past their limits is an ERROR (rule a). K = 0: rule a off.
	K, M int
	// The normal one-sided upper tolerance bound at P and Conf of the last N counted stops' still times (and,
	// apart, travels), each divided by its stop's limit, the worst of the N left out (one stop is a WARN,
	// never an ERROR), past 1 is an ERROR (rule b). N = 0: rule b off; N < 3 is taken as 3.
	N       int
	P, Conf float64
}

// DefaultRules: 3 of 5; the 80 % / 80 % bound of the last 20 (docs/safety-case.md argues them; the
// measured false-flag rate is there and in TestFalseFlagRate).
var DefaultRules = Rules{K: 3, M: 5, N: 20, P: 0.8, Conf: 0.8}

// ErrNothingToAck is Ack's error when there is no ERROR to acknowledge.
var ErrNothingToAck = errors.New("stop monitor: no ERROR to acknowledge")

// Monitor is the stop-performance monitor: one owner calls Observe for each timed stop, Ack for a person's
// acknowledgement, State and CanEnable to show and gate. Not safe for concurrent use (one owner).
type Monitor struct {
	mode   string
	modeOK bool
	lim    *Limits
	rules  Rules
	ruleWh string  // a note on rules that were corrected
	k      float64 // the tolerance factor of rules N, P, Conf

	wins    map[string]*window
	stops   uint64
	counted uint64
	lastSeq uint64

	level   string // of the latest evaluation
	why     string
	holding bool
	holdWhy string
	acked   string
}

// window is one kind's counted stops since the start or the last Ack, the newest last.
type window struct{ stops []counted }

type counted struct {
	seq                 uint64
	still, travel       float64 // NaN: not measured (still: never still, ranks past every limit)
	stillLim, travelLim float64 // 0: no limit on it
	past                bool
}

// New makes a monitor. An unknown mode is taken as hold (the safe side) and State says so; zero Rules
// fields take DefaultRules'; K > M is taken as K = M. l may be nil (no limits: nothing is judged).
func New(mode string, l *Limits, rules Rules) *Monitor {
	m := &Monitor{mode: mode, modeOK: true, lim: l, wins: map[string]*window{}, level: api.StopLevelOK}
	if _, err := ParseMode(mode); err != nil || mode == "" {
		m.mode, m.modeOK = ModeHold, mode == ""
	}
	d := DefaultRules
	if rules.K == 0 && rules.M == 0 {
		rules.K, rules.M = d.K, d.M
	}
	if rules.M == 0 {
		rules.M = d.M
	}
	if rules.K > rules.M {
		m.ruleWh = fmt.Sprintf("K %d > M %d: taken as %d of %d", rules.K, rules.M, rules.M, rules.M)
		rules.K = rules.M
	}
	if rules.N == 0 && rules.P == 0 && rules.Conf == 0 {
		rules.N, rules.P, rules.Conf = d.N, d.P, d.Conf
	}
	if rules.P == 0 {
		rules.P = d.P
	}
	if rules.Conf == 0 {
		rules.Conf = d.Conf
	}
	if rules.N > 0 && rules.N < 3 {
		m.ruleWh = fmt.Sprintf("N %d: taken as 3 (the bound leaves out the worst stop and needs two)", rules.N)
		rules.N = 3
	}
	m.rules = rules
	m.k = tolFactor(rules.N-1, rules.P, rules.Conf)
	return m
}

// Observe holds one stop record against its limit and the trend, and returns it with Limit and Level filled.
// Only ConfidenceOK records with a limit count; others get Level "" and a note, and are kept.
func (m *Monitor) Observe(rec api.StopRecord) api.StopRecord {
	m.stops++
	if rec.Seq > m.lastSeq {
		m.lastSeq = rec.Seq
	}
	rec.Level = ""
	rec.Limit = nil
	if m.lim != nil {
		if lim, ok, why := m.lim.Lookup(rec.Kind, rec.Direction, rec.Speed); ok {
			rec.Limit = &lim
		} else {
			rec.Notes = append(rec.Notes, "not counted: "+why)
		}
	}
	if m.mode == ModeOff {
		return rec
	}
	if rec.Confidence != api.ConfidenceOK {
		rec.Notes = append(rec.Notes, fmt.Sprintf("not counted: confidence %q (only %q stops are held against a limit)", rec.Confidence, api.ConfidenceOK))
		return rec
	}
	if rec.Limit == nil {
		return rec
	}
	c := counted{seq: rec.Seq, still: math.NaN(), travel: math.NaN(), stillLim: rec.Limit.MaxStillS, travelLim: rec.Limit.MaxTravelM}
	if rec.StillS != nil && !math.IsNaN(*rec.StillS) {
		c.still = *rec.StillS
	}
	if rec.TravelM != nil && !math.IsNaN(*rec.TravelM) {
		c.travel = *rec.TravelM
	}
	var past []string
	if c.stillLim > 0 && (math.IsNaN(c.still) || c.still > c.stillLim) {
		if math.IsNaN(c.still) {
			past = append(past, fmt.Sprintf("no time to still, limit %s s", f2(c.stillLim)))
		} else {
			past = append(past, fmt.Sprintf("still after %s s, limit %s s", fPast(c.still, c.stillLim), f2(c.stillLim)))
		}
	}
	if c.travelLim > 0 && !math.IsNaN(c.travel) && c.travel > c.travelLim {
		past = append(past, fmt.Sprintf("travel %s m, limit %s m", f3(c.travel), f3(c.travelLim)))
	}
	c.past = len(past) > 0
	m.counted++
	w := m.wins[rec.Kind]
	if w == nil {
		w = &window{}
		m.wins[rec.Kind] = w
	}
	w.stops = append(w.stops, c)
	if keep := max(m.rules.M, m.rules.N); len(w.stops) > keep {
		w.stops = w.stops[len(w.stops)-keep:]
	}
	rec.Level = api.StopLevelOK
	if c.past {
		rec.Level = api.StopLevelWarn
		rec.Notes = append(rec.Notes, "past its limit: "+strings.Join(past, "; "))
	}
	if why := m.trend(rec.Kind, w); why != "" {
		rec.Level = api.StopLevelError
		rec.Notes = append(rec.Notes, "trend: "+why)
		if m.mode == ModeHold && !m.holding {
			m.holding, m.holdWhy = true, why
		}
		m.level, m.why = api.StopLevelError, why
		return rec
	}
	m.level, m.why = m.evaluate()
	if c.past && m.level != api.StopLevelError {
		name := "" // a stop of a driver without a log has no seq
		if rec.Seq != 0 {
			name = fmt.Sprintf(" (seq %d)", rec.Seq)
		}
		m.level, m.why = api.StopLevelWarn, fmt.Sprintf("the last %s stop%s was past its limit: %s", rec.Kind, name, strings.Join(past, "; "))
	}
	return rec
}

// evaluate is the level over every kind's window (after an Observe of another kind or an Ack).
func (m *Monitor) evaluate() (string, string) {
	for _, k := range Kinds {
		if w := m.wins[k]; w != nil {
			if why := m.trend(k, w); why != "" {
				return api.StopLevelError, why
			}
		}
	}
	for k, w := range m.wins {
		if !known(k) {
			if why := m.trend(k, w); why != "" {
				return api.StopLevelError, why
			}
		}
	}
	return api.StopLevelOK, ""
}

// trend is why kind's window shows an ERROR, "" when it does not.
func (m *Monitor) trend(kind string, w *window) string {
	r := m.rules
	if r.K > 0 && len(w.stops) >= r.K {
		last := w.stops[max(0, len(w.stops)-r.M):]
		var pastOnes []counted
		for _, c := range last {
			if c.past {
				pastOnes = append(pastOnes, c)
			}
		}
		if len(pastOnes) >= r.K {
			return kOfM(kind, len(pastOnes), len(last), pastOnes)
		}
	}
	if r.N >= 3 && len(w.stops) >= r.N && !math.IsNaN(m.k) {
		last := w.stops[len(w.stops)-r.N:]
		k := m.k
		for _, q := range []struct {
			name, unit string
			val, lim   func(c counted) float64
		}{
			{"still times", "s", func(c counted) float64 { return c.still }, func(c counted) float64 { return c.stillLim }},
			{"travels", "m", func(c counted) float64 { return c.travel }, func(c counted) float64 { return c.travelLim }},
		} {
			var ratios []float64
			never := 0
			for _, c := range last {
				v, l := q.val(c), q.lim(c)
				if l <= 0 {
					continue
				}
				if math.IsNaN(v) {
					if q.unit == "s" {
						never++
					}
					continue
				}
				ratios = append(ratios, v/l)
			}
			if never > 0 || len(ratios) < r.N {
				// A stop never still is rule a's (it is past its limit); a bound needs N values.
				continue
			}
			// One stop never makes an ERROR (it is a WARN): the bound leaves out the window's worst stop, so a
			// single far-out stop cannot widen it past the limit.
			slices.Sort(ratios)
			ratios = ratios[:len(ratios)-1]
			mean, sd := meanSD(ratios)
			if b := mean + k*sd; b > 1 {
				return fmt.Sprintf("the last %d %s stops' %s: their upper tolerance bound (%s of stops at %s confidence, normal, the worst stop left out) is %.0f %% of their limits (mean %.0f %%, sd %.1f %%)",
					r.N, kind, q.name, pctS(r.P), pctS(r.Conf), b*100, mean*100, sd*100)
			}
		}
	}
	return ""
}

// kOfM: "3 of the last 5 estop stops past the 0.45 s limit (0.52, 0.61, 0.58 s)".
func kOfM(kind string, k, m int, past []counted) string {
	sameLim := true
	for _, c := range past[1:] {
		if c.stillLim != past[0].stillLim || c.travelLim != past[0].travelLim {
			sameLim = false
		}
	}
	var vals []string
	for _, c := range past {
		stillPast := c.stillLim > 0 && (math.IsNaN(c.still) || c.still > c.stillLim)
		v := ""
		switch {
		case stillPast && math.IsNaN(c.still):
			v = "never still"
		case stillPast:
			v = fPast(c.still, c.stillLim) + " s"
		default:
			v = "travel " + f3(c.travel) + " m"
		}
		if !sameLim {
			if stillPast {
				v += " against " + f2(c.stillLim) + " s"
			} else {
				v += " against " + f3(c.travelLim) + " m"
			}
		}
		vals = append(vals, v)
	}
	lim := "their limits"
	if sameLim {
		var ls []string
		if past[0].stillLim > 0 {
			ls = append(ls, f2(past[0].stillLim)+" s")
		}
		if past[0].travelLim > 0 {
			ls = append(ls, f3(past[0].travelLim)+" m")
		}
		lim = "the " + strings.Join(ls, " / ") + " limit"
	}
	list := strings.Join(vals, ", ")
	if sameLim && !slices.ContainsFunc(vals, func(v string) bool { return !strings.HasSuffix(v, " s") || strings.HasPrefix(v, "never") }) {
		// All times against one limit: "(0.52, 0.61, 0.58 s)".
		for i := range vals {
			vals[i] = strings.TrimSuffix(vals[i], " s")
		}
		list = strings.Join(vals, ", ") + " s"
	}
	return fmt.Sprintf("%d of the last %d %s stops past %s (%s)", k, m, kind, lim, list)
}

// Ack is a person's acknowledgement of an ERROR (who: the person; the caller checks the safety role). It
// clears the hold and restarts every kind's trend window, so the stops already judged do not trip it again;
// a new ERROR after it holds again.
func (m *Monitor) Ack(who string, at time.Time) error {
	if strings.TrimSpace(who) == "" {
		return errors.New("stop monitor: an acknowledgement needs the person's name")
	}
	if !m.holding && m.level != api.StopLevelError {
		return ErrNothingToAck
	}
	why := m.holdWhy
	if why == "" {
		why = m.why
	}
	m.acked = fmt.Sprintf("%s at %s (%s)", who, at.UTC().Format(time.RFC3339), why)
	m.holding, m.holdWhy = false, ""
	m.wins = map[string]*window{}
	m.level, m.why = api.StopLevelOK, ""
	return nil
}

// State is the monitor's state for the state record and every surface.
func (m *Monitor) State() api.StopMonitor {
	s := api.StopMonitor{Mode: m.mode, Level: m.level, Why: m.why, Holding: m.holding, Stops: m.stops, Counted: m.counted,
		LastSeq: m.lastSeq, Acked: m.acked, LimitsSource: "none"}
	if m.lim != nil {
		s.LimitsSource = m.lim.Source
	}
	if m.holding {
		s.Level = api.StopLevelError
		s.Why = "holding (enable refused until acknowledged by a person with the safety role): " + m.holdWhy
		if m.why != "" && m.why != m.holdWhy {
			s.Why += "; now: " + m.why
		}
	}
	var notes []string
	if !m.modeOK {
		notes = append(notes, "unknown stop_monitor mode: taken as hold")
	}
	if m.ruleWh != "" {
		notes = append(notes, "rules: "+m.ruleWh)
	}
	if m.mode == ModeOff {
		s.Level = api.StopLevelOK
		notes = append(notes, "the monitor is off (stop_monitor: off): stops are logged with their limits, not judged")
	}
	if m.lim == nil && m.mode != ModeOff {
		notes = append(notes, "no limits: no stop is judged")
	}
	if len(notes) > 0 {
		if s.Why != "" {
			s.Why += "; "
		}
		s.Why += strings.Join(notes, "; ")
	}
	return s
}

// CanEnable is the driver's enable gate: false, with the reason to show, while an ERROR holds.
func (m *Monitor) CanEnable() (bool, string) {
	if m.mode == ModeHold && m.holding {
		return false, "stop monitor ERROR, enable refused until a person with the safety role acknowledges it: " + m.holdWhy
	}
	return true, ""
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// fPast is a value past its limit with the digits that show it past (0.4004 against 0.40: "0.4004").
func fPast(v, lim float64) string {
	for d := 2; d < 6; d++ {
		if s := strconv.FormatFloat(v, 'f', d, 64); s != strconv.FormatFloat(lim, 'f', d, 64) {
			return s
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func pctS(p float64) string { return strconv.FormatFloat(p*100, 'f', -1, 64) + " %" }
