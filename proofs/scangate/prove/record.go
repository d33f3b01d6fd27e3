package prove

import (
	"time"

	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/scangate"
)

// KindScangate is the judge input's kind for the scan-gate check.
const KindScangate = "scangate"

// JudgeInput is the scan-gate check's judge call as the recording holds it (/proof/judge_input).
type JudgeInput struct {
	Kind   string          `json:"kind"` // "scangate"
	Input  scangate.Input  `json:"input"`
	Result scangate.Result `json:"result"` // what the live run's judge said
}

// record writes the judge's input and its verdict.
func record(rec *proofrec.Writer, at time.Time, in scangate.Input, res scangate.Result) {
	if rec == nil {
		return
	}
	rec.Input(at, JudgeInput{Kind: KindScangate, Input: in, Result: res})
	rec.Event(at, map[string]any{"event": "verdict", "pass": res.Pass, "reason": res.Reason})
}

// Rejudge judges a recorded input again; differs is "" when the verdict equals the recorded one.
func Rejudge(in JudgeInput) (res scangate.Result, differs string) {
	res = scangate.Judge(in.Input)
	a, b := res.JSONLine()+res.Verdict(), in.Result.JSONLine()+in.Result.Verdict()
	if a != b {
		return res, "live: " + b + "; now: " + a
	}
	return res, ""
}
