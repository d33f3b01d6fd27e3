package scangate

import (
	"time"

	"github.com/rosorin/rosorin/judge/scanloss"
	"github.com/rosorin/rosorin/proofs/proofrec"
)

// KindScangate is the judge input's kind for the scan-gate check.
const KindScangate = "scangate"

// JudgeInput is the scan-gate check's judge call as the recording holds it (/proof/judge_input).
type JudgeInput struct {
	Kind   string          `json:"kind"` // "scangate"
	Input  scanloss.Input  `json:"input"`
	Result scanloss.Result `json:"result"` // what the live run's judge said
}

// record writes the judge's input and its verdict.
func record(rec *proofrec.Writer, at time.Time, in scanloss.Input, res scanloss.Result) {
	if rec == nil {
		return
	}
	rec.Input(at, JudgeInput{Kind: KindScangate, Input: in, Result: res})
	rec.Event(at, map[string]any{"event": "verdict", "pass": res.Pass, "reason": res.Reason})
}

// Rejudge judges a recorded input again; differs is "" when the verdict equals the recorded one.
func Rejudge(in JudgeInput) (res scanloss.Result, differs string) {
	res = scanloss.Judge(in.Input)
	a, b := res.JSONLine()+res.Verdict(), in.Result.JSONLine()+in.Result.Verdict()
	if a != b {
		return res, "live: " + b + "; now: " + a
	}
	return res, ""
}
