package reportdoc

import (
	"encoding/xml"
	"fmt"
	"io"
)

// JUnit XML, the shape Ant's junitreport writes and CI test reporters read. The counts (tests, failures) are
// the renderer's: a builder leaves them zero.
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

// JUnitOf is the document's JUnit XML tree, counted: each suite's tests and failures, and their sums.
func JUnitOf(d *Document) Testsuites {
	doc := Testsuites{Name: d.TestsName}
	for _, s := range d.Suites {
		s.Tests, s.Failures = len(s.Cases), 0
		for _, c := range s.Cases {
			if c.Failure != nil {
				s.Failures++
			}
		}
		if s.Time == "" {
			s.Time = "0"
		}
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	return doc
}

// JUnit writes the document's test suites as JUnit XML.
func JUnit(w io.Writer, d *Document) error {
	b, err := xml.MarshalIndent(JUnitOf(d), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}
