package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/reportdoc"
)

// The JUnit XML tree is the report model's (reportdoc); these names stay for the tests and tools that parse
// a report back.
type (
	Testsuites = reportdoc.Testsuites
	Testsuite  = reportdoc.Testsuite
	Testcase   = reportdoc.Testcase
	Property   = reportdoc.Property
	Failure    = reportdoc.Failure
)

// suites are the JUnit suites of the report: a testsuite per run, a testcase per result line (classname
// stopproof.PATH, name the line's name: "estop request, fwd 0.2"), the measurements and the stop time as
// properties, a failure (message: the judge's reason; type FAIL or TIMEOUT) for a line that did not pass,
// and a testcase per regression against the baseline.
func suites(runs []ProofFile, cmp *Comparison) []Testsuite {
	var out []Testsuite
	for _, run := range runs {
		rep := run.Report
		s := Testsuite{Name: run.Name, Properties: []Property{prop("tool", rep.Tool), prop("target", rep.Target)}}
		if !rep.Start.IsZero() {
			s.Timestamp = rep.Start.UTC().Format("2006-01-02T15:04:05")
			s.Time = secs(rep.End.Sub(rep.Start).Seconds())
		} else {
			s.Time = "0"
		}
		if rep.Fault != "" {
			s.Properties = append(s.Properties, prop("fault", rep.Fault))
		}
		for _, r := range rep.Results {
			c := Testcase{Name: r.Name, Classname: "stopproof." + string(r.Path), SystemOut: r.Line}
			c.Time = secs(r.Verdict.End - r.Verdict.Trigger)
			c.Properties = append(c.Properties, prop("outcome", r.Outcome.String()), prop("stop_s", numStr(r.StopS)))
			for _, m := range r.Measurements {
				c.Properties = append(c.Properties, prop(m.Name, fmt.Sprintf("%s %s (%s %s)", numStr(m.Value), m.Unit, m.Rule, numStr(m.Limit))))
			}
			if r.Outcome != vibration.Pass {
				c.Failure = &Failure{Message: r.Reason, Type: r.Outcome.String(), Text: r.Line}
			}
			s.Cases = append(s.Cases, c)
		}
		out = append(out, s)
	}
	if cmp != nil {
		s := Testsuite{Name: "baseline " + cmp.Baseline, Time: "0", Properties: []Property{prop("tolerance", cmp.Tolerance.String())}}
		for _, k := range cmp.Checked {
			c := Testcase{Name: "no regression: " + k.String(), Classname: "stopproof.baseline", Time: "0"}
			if msg, bad := cmp.ByKey[k]; bad {
				c.Failure = &Failure{Message: msg, Type: "REGRESSION", Text: msg}
			}
			s.Cases = append(s.Cases, c)
		}
		out = append(out, s)
	}
	return out
}

// JUnitOf is the report's JUnit document, counted.
func JUnitOf(runs []ProofFile, cmp *Comparison) Testsuites {
	return reportdoc.JUnitOf(&reportdoc.Document{TestsName: "stopproof", Suites: suites(runs, cmp)})
}

// JUnit writes the JUnit XML document.
func JUnit(w io.Writer, runs []ProofFile, cmp *Comparison) error {
	return reportdoc.JUnit(w, &reportdoc.Document{TestsName: "stopproof", Suites: suites(runs, cmp)})
}

func prop(name, value string) Property { return Property{Name: name, Value: value} }

func secs(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return "0"
	}
	return strconv.FormatFloat(s, 'f', 3, 64)
}

func numStr(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "none"
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}
