package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rosorin/rosorin/proofs/stand"
)

// JUnit XML, the shape Ant's junitreport writes and CI test reporters read.
type (
	Testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Suites   []Testsuite `xml:"testsuite"`
	}
	Testsuite struct {
		Name       string     `xml:"name,attr"`
		Tests      int        `xml:"tests,attr"`
		Failures   int        `xml:"failures,attr"`
		Errors     int        `xml:"errors,attr"`
		Time       string     `xml:"time,attr"`
		Timestamp  string     `xml:"timestamp,attr,omitempty"`
		Properties []Property `xml:"properties>property,omitempty"`
		Cases      []Testcase `xml:"testcase"`
	}
	Testcase struct {
		Name       string     `xml:"name,attr"`
		Classname  string     `xml:"classname,attr"`
		Time       string     `xml:"time,attr"`
		Properties []Property `xml:"properties>property,omitempty"`
		Failure    *Failure   `xml:"failure,omitempty"`
		SystemOut  string     `xml:"system-out,omitempty"`
	}
	Property struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	Failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// JUnitOf builds the JUnit document: a testsuite per run, a testcase per result line (classname
// stopproof.PATH, name the line's name: "estop request, fwd 0.2"), the measurements and the stop time as
// properties, a failure (message: the judge's reason; type FAIL or TIMEOUT) for a line that did not pass,
// and a testcase per regression against the baseline.
func JUnitOf(runs []Run, cmp *Comparison) Testsuites {
	doc := Testsuites{Name: "stopproof"}
	for _, run := range runs {
		rep := run.Report
		s := Testsuite{Name: run.Name, Properties: []Property{{"tool", rep.Tool}, {"target", rep.Target}}}
		if !rep.Start.IsZero() {
			s.Timestamp = rep.Start.UTC().Format("2006-01-02T15:04:05")
			s.Time = secs(rep.End.Sub(rep.Start).Seconds())
		} else {
			s.Time = "0"
		}
		if rep.Fault != "" {
			s.Properties = append(s.Properties, Property{"fault", rep.Fault})
		}
		for _, r := range rep.Results {
			c := Testcase{Name: r.Name, Classname: "stopproof." + string(r.Path), SystemOut: r.Line}
			c.Time = secs(r.Verdict.End - r.Verdict.Trigger)
			c.Properties = append(c.Properties, Property{"outcome", r.Outcome.String()}, Property{"stop_s", numStr(r.StopS)})
			for _, m := range r.Measurements {
				c.Properties = append(c.Properties, Property{m.Name, fmt.Sprintf("%s %s (%s %s)", numStr(m.Value), m.Unit, m.Rule, numStr(m.Limit))})
			}
			if r.Outcome != stand.Pass {
				c.Failure = &Failure{Message: r.Reason, Type: r.Outcome.String(), Text: r.Line}
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		doc.Suites = append(doc.Suites, s)
	}
	if cmp != nil {
		s := Testsuite{Name: "baseline " + cmp.Baseline, Time: "0", Properties: []Property{{"tolerance", cmp.Tolerance.String()}}}
		for _, k := range cmp.Checked {
			c := Testcase{Name: "no regression: " + k.String(), Classname: "stopproof.baseline", Time: "0"}
			if msg, bad := cmp.ByKey[k]; bad {
				c.Failure = &Failure{Message: msg, Type: "REGRESSION", Text: msg}
				s.Failures++
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		doc.Suites = append(doc.Suites, s)
	}
	for _, s := range doc.Suites {
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	return doc
}

// JUnit writes the JUnit XML document.
func JUnit(w io.Writer, runs []Run, cmp *Comparison) error {
	b, err := xml.MarshalIndent(JUnitOf(runs, cmp), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}

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
