package scangate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/judge/scanloss"
	"github.com/rosorin/rosorin/proofs/proofrec"
)

func f64(x float64) *float64 { return &x }

// gateInput is a check that passes: scan_age climbing past scan_timeout after the kill, back 2.5 s later with
// a new reader.
func gateInput() scanloss.Input {
	in := scanloss.Input{Before: f64(0.05), Killed: []int{7}, ReaderPIDsNow: []int{8}, ScanTimeout: 0.5}
	for k := 0; k <= 25; k++ {
		t := float64(k) / 10
		in.Obs = append(in.Obs, scanloss.Observation{T: t, ScanAge: f64(t + 0.05), Blocked: "disabled"})
	}
	for k := 26; k <= 60; k++ {
		in.Obs = append(in.Obs, scanloss.Observation{T: float64(k) / 10, ScanAge: f64(0.05), Blocked: "disabled"})
	}
	return in
}

func fileOf(t *testing.T, ins ...any) *proofrec.File {
	t.Helper()
	f := &proofrec.File{Meta: map[string]string{"kind": RecordingKind}}
	for _, in := range ins {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		f.Inputs = append(f.Inputs, proofrec.Message{Text: string(b)})
	}
	return f
}

// The recorded verdict comes back; a recorded verdict the judge no longer gives is a difference; a file
// without a judge input passes nothing; an input of another judge is an error.
func TestRejudgeRecording(t *testing.T) {
	in := gateInput()
	live := scanloss.Judge(in)
	if !live.Pass {
		t.Fatalf("the test's input fails: %s", live.Reason)
	}
	var out strings.Builder
	f := fileOf(t, JudgeInput{Kind: KindScangate, Input: in, Result: live})
	rj, err := RejudgeRecording(f)
	if err != nil || !rj.Passed() || !rj.Agrees() || WriteRejudged(&out, "run.mcap", f, rj) != nil ||
		!strings.Contains(out.String(), "== run.mcap\nrecording: scan_gate_live\n") || !strings.HasSuffix(out.String(), "re-judge: the same verdict as the live run\n") {
		t.Fatalf("%v %+v\n%s", err, rj, out.String())
	}

	claimed := live
	claimed.Pass, claimed.Reason = false, "the live run said otherwise"
	out.Reset()
	f = fileOf(t, JudgeInput{Kind: KindScangate, Input: in, Result: claimed})
	rj, err = RejudgeRecording(f)
	if err != nil || !rj.Passed() || rj.Agrees() || WriteRejudged(&out, "run.mcap", f, rj) != nil ||
		!strings.Contains(out.String(), "re-judge DIFFERS from the live run: live: ") {
		t.Fatalf("%v %+v\n%s", err, rj, out.String())
	}

	out.Reset()
	f = fileOf(t)
	rj, err = RejudgeRecording(f)
	if err != nil || rj.Passed() || !rj.Agrees() || WriteRejudged(&out, "cut.mcap", f, rj) != nil ||
		!strings.Contains(out.String(), "no judge input recorded") {
		t.Fatalf("%v %+v\n%s", err, rj, out.String())
	}

	if _, err := RejudgeRecording(fileOf(t, map[string]any{"kind": "stop"})); err == nil || !strings.Contains(err.Error(), "judge input 1 is not a scan-gate input") {
		t.Errorf("a stand input: %v", err)
	}
}
