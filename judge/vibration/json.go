package vibration

import (
	"encoding/json"
	"math"
	"strconv"
)

// JSON: encoding/json refuses NaN and infinities, and a verdict uses NaN for "not measured". Every type with
// a float that may be NaN therefore marshals through a shadow struct whose floats write null, and reads null
// back as NaN. Field names are snake_case with units, for the runner's --json record.

// jfloat is a float64 that marshals NaN and infinities as null and reads null as NaN.
type jfloat float64

func (f jfloat) MarshalJSON() ([]byte, error) {
	if !isFinite(float64(f)) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(f), 'g', -1, 64), nil
}

func (f *jfloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jfloat(math.NaN())
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = jfloat(x)
	return nil
}

type paramsJSON struct {
	Threshold  jfloat `json:"threshold"`
	Window     jfloat `json:"window_s"`
	Step       jfloat `json:"step_s"`
	MaxStop    jfloat `json:"max_stop_s"`
	NeedQuiet  jfloat `json:"need_quiet_s"`
	SpinWindow jfloat `json:"spin_window_s"`
	MinSamples int    `json:"min_samples"`
	MaxGap     jfloat `json:"max_gap_s"`
}

// MarshalJSON writes the limits; a non-finite one (invalid parameters) is written as null.
func (p Params) MarshalJSON() ([]byte, error) {
	return json.Marshal(paramsJSON{jfloat(p.Threshold), jfloat(p.Window), jfloat(p.Step), jfloat(p.MaxStop),
		jfloat(p.NeedQuiet), jfloat(p.SpinWindow), p.MinSamples, jfloat(p.MaxGap)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Params) UnmarshalJSON(b []byte) error {
	var j paramsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Params{float64(j.Threshold), float64(j.Window), float64(j.Step), float64(j.MaxStop),
		float64(j.NeedQuiet), float64(j.SpinWindow), j.MinSamples, float64(j.MaxGap)}
	return nil
}

type windowJSON struct {
	End    jfloat `json:"end"`
	Score  jfloat `json:"score"`
	N      int    `json:"n"`
	NoData bool   `json:"no_data,omitempty"`
}

// MarshalJSON writes {"end", "score", "n", "no_data"}; a NaN score is null.
func (w WindowScore) MarshalJSON() ([]byte, error) {
	return json.Marshal(windowJSON{jfloat(w.End), jfloat(w.Score), w.N, w.NoData})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (w *WindowScore) UnmarshalJSON(b []byte) error {
	var j windowJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*w = WindowScore{float64(j.End), float64(j.Score), j.N, j.NoData}
	return nil
}

type verdictJSON struct {
	Kind       Kind          `json:"kind"`
	Outcome    Outcome       `json:"outcome"`
	Reason     string        `json:"reason"`
	Spinning   jfloat        `json:"spinning"`
	StillFrom  jfloat        `json:"still_from_s"`
	WorstAfter jfloat        `json:"worst_after"`
	QuietFor   jfloat        `json:"quiet_for_s"`
	QuietRule  string        `json:"quiet_rule,omitempty"`
	Trigger    jfloat        `json:"trigger"`
	End        jfloat        `json:"end"`
	Samples    int           `json:"samples"`
	Dropped    int           `json:"dropped"`
	Gap        jfloat        `json:"gap_s"`
	GapFrom    jfloat        `json:"gap_from_s"`
	Params     Params        `json:"params"`
	Windows    []WindowScore `json:"windows"`
}

// MarshalJSON writes every field in snake_case, unmeasured numbers as null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	return json.Marshal(verdictJSON{v.Kind, v.Outcome, v.Reason, jfloat(v.Spinning), jfloat(v.StillFrom),
		jfloat(v.WorstAfter), jfloat(v.QuietFor), v.QuietRule, jfloat(v.Trigger), jfloat(v.End), v.Samples, v.Dropped,
		jfloat(v.Gap), jfloat(v.GapFrom), v.Params, v.Windows})
}

// UnmarshalJSON reads what MarshalJSON writes (null back to NaN).
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var j verdictJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*v = Verdict{Kind: j.Kind, Outcome: j.Outcome, Reason: j.Reason, Spinning: float64(j.Spinning),
		StillFrom: float64(j.StillFrom), WorstAfter: float64(j.WorstAfter), QuietFor: float64(j.QuietFor),
		QuietRule: j.QuietRule, Trigger: float64(j.Trigger), End: float64(j.End), Samples: j.Samples,
		Dropped: j.Dropped, Gap: float64(j.Gap), GapFrom: float64(j.GapFrom), Params: j.Params, Windows: j.Windows}
	return nil
}

type levelJSON struct {
	Name     string `json:"name"`
	Spinning bool   `json:"spinning"`
	From     jfloat `json:"from"`
	To       jfloat `json:"to"`
	Median   jfloat `json:"median"`
	P05      jfloat `json:"p05"`
	P95      jfloat `json:"p95"`
	Max      jfloat `json:"max"`
	Windows  int    `json:"windows"`
	NoData   int    `json:"no_data"`
}

// MarshalJSON writes the level in snake_case, unmeasured numbers as null.
func (l PhaseLevel) MarshalJSON() ([]byte, error) {
	return json.Marshal(levelJSON{l.Name, l.Spinning, jfloat(l.From), jfloat(l.To), jfloat(l.Median),
		jfloat(l.P05), jfloat(l.P95), jfloat(l.Max), l.Windows, l.NoData})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (l *PhaseLevel) UnmarshalJSON(b []byte) error {
	var j levelJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*l = PhaseLevel{j.Name, j.Spinning, float64(j.From), float64(j.To), float64(j.Median), float64(j.P05),
		float64(j.P95), float64(j.Max), j.Windows, j.NoData}
	return nil
}
