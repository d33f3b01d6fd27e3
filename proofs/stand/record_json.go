package stand

import (
	"encoding/json"
)

// UnmarshalJSON reads what MarshalJSON writes: null for a value that could not be measured is NaN.
func (m *Measurement) UnmarshalJSON(b []byte) error {
	var p measurementJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = Measurement{Name: p.Name, Value: unnum(p.Value), Limit: unnum(p.Limit), Unit: p.Unit, Rule: p.Rule, OK: p.OK, Why: p.Why}
	return nil
}

// UnmarshalJSON reads what MarshalJSON writes: stop_s and trigger_s, null as NaN.
func (r *Result) UnmarshalJSON(b []byte) error {
	type alias Result
	var x struct {
		alias
		TriggerS *float64 `json:"trigger_s"`
		StopS    *float64 `json:"stop_s"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*r = Result(x.alias)
	r.TriggerS, r.StopS = unnum(x.TriggerS), unnum(x.StopS)
	return nil
}

// ReadReport parses a proof's --json record.
func ReadReport(b []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.Results == nil && r.Planned == 0 && r.Tool == "" {
		return nil, errNotRecord
	}
	return &r, nil
}

var errNotRecord = jsonError("not a stop proof record: no tool, no results")

type jsonError string

func (e jsonError) Error() string { return string(e) }
