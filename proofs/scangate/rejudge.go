package scangate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rosorin/rosorin/judge/scanloss"
	"github.com/rosorin/rosorin/proofs/proofrec"
)

// RecordingKind is the kind (metadata rosorin.proof) of a scan-gate check's recording: its evidence log's
// name too.
const RecordingKind = "scan_gate_live"

// RejudgedCheck is one recorded judge call judged again.
type RejudgedCheck struct {
	Result scanloss.Result
	// Differs says how the verdict differs from the live run's ("" when it does not).
	Differs string
}

// Rejudged is a recorded scan-gate check judged again offline by scangate.Judge.
type Rejudged struct {
	Checks []RejudgedCheck
}

// Passed reports whether the recording holds a judge call and every one passed.
func (r *Rejudged) Passed() bool {
	for _, c := range r.Checks {
		if !c.Result.Pass {
			return false
		}
	}
	return len(r.Checks) > 0
}

// Agrees reports whether every verdict is the live run's.
func (r *Rejudged) Agrees() bool {
	for _, c := range r.Checks {
		if c.Differs != "" {
			return false
		}
	}
	return true
}

// RejudgeRecording judges every recorded scan-gate input of f again. An input that is not a scan-gate
// input is an error: f is not a scan-gate recording.
func RejudgeRecording(f *proofrec.File) (*Rejudged, error) {
	rj := &Rejudged{}
	for i, m := range f.Inputs {
		var in JudgeInput
		if err := json.Unmarshal([]byte(m.Text), &in); err != nil || in.Kind != KindScangate {
			return nil, fmt.Errorf("judge input %d is not a scan-gate input", i+1)
		}
		res, d := Rejudge(in)
		rj.Checks = append(rj.Checks, RejudgedCheck{Result: res, Differs: d})
	}
	return rj, nil
}

// WriteRejudged prints a re-judged check as stopproof judge does: the verdicts, any difference from the live
// run, and whether the re-judge agrees.
func WriteRejudged(w io.Writer, name string, f *proofrec.File, rj *Rejudged) error {
	var b strings.Builder
	fmt.Fprintf(&b, "== %s\nrecording: %s\n", name, f.Meta["kind"])
	for _, c := range rj.Checks {
		fmt.Fprintln(&b, c.Result.String())
		if c.Differs != "" {
			fmt.Fprintf(&b, "re-judge DIFFERS from the live run: %s\n", c.Differs)
		}
	}
	switch {
	case len(rj.Checks) == 0:
		fmt.Fprintln(&b, "no judge input recorded (the check aborted, or the file was cut before its verdict)")
	case rj.Agrees():
		fmt.Fprintln(&b, "re-judge: the same verdict as the live run")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
