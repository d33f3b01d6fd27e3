package reportdoc

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// hostile is a document whose cells, titles, links and failure text hold markup of every format.
func hostile() *Document {
	return &Document{
		Title:  "R&D <report>",
		Blocks: []Block{Para{Text: Text{Marked("FAIL: 1 of 2", Fail)}, ID: "verdict", Box: true, Status: Fail}},
		Sections: []Section{{
			Title: Text{{Text: "cell a|b: "}, Marked("FAIL", Fail)}, ID: "cell-1",
			Blocks: []Block{
				Table{ID: "t", Header: []string{"name", "value"}, Rows: []Row{
					{Cells: []Cell{C("x|y"), {Text: T("<b>&amp;</b>"), Status: Fail, Title: `"quoted" <t>`}}},
					{Cells: []Cell{C("multi\nline"), {Text: Text{Link("run 5", "camp/runs/5.json")}}}},
				}},
				Table{ID: "empty", Header: []string{"seq", "cell"}},
				Table{ID: "nothing"},
				Table{RowHeads: true, Rows: []Row{{Cells: []Cell{C("stated: surface"), C("wheels | air")}}}},
				Table{Form: true, RowHeads: true, Rows: []Row{{Cells: []Cell{C("signature"), C("")}}}},
				List{Items: []Text{T("a <script>alert(1)</script>"), {Link("evil", "javascript:alert(1)")}}},
				Figure{Title: "kill", Alt: "vibration score of kill", PNG: []byte("\x89PNG fake")},
				Figure{Title: "svg", SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><line/></svg>`), Caption: "off the plot: 1 < 2"},
				Figure{Title: "broken", Err: "no scored windows & nothing to plot"},
			},
		}},
		TestsName: "suite & <co>",
		Suites: []Testsuite{{Name: "s1", Cases: []Testcase{
			{Name: "ok", Classname: "c.ok"},
			{Name: "bad <one> & \"two\"", Classname: "c.bad", Failure: &Failure{Message: "a < b & c", Type: "FAIL", Text: "line\n<x>"}, SystemOut: "]]> out"},
		}}, {Name: "empty"}},
	}
}

func TestMarkdownEscapesCells(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"# R&D <report>\n",
		"**FAIL: 1 of 2**",
		"## cell a|b: FAIL\n", // a heading is no table: | stays
		"| name | value |\n|---|---|\n",
		`| x\|y | <b>&amp;</b> |`,
		"| multi line | [run 5](camp/runs/5.json) |",
		"| seq | cell |\n|---|---|\n\n", // an empty table: its header, no rows
		"- stated: surface: wheels | air\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| x") && strings.Count(line, "|")-strings.Count(line, `\|`) != 3 {
			t.Errorf("the escaped cell split the row: %q", line)
		}
	}
	for _, bad := range []string{"signature", "vibration score", "PNG", "<svg", "no scored windows"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown holds %q (figures and forms are the HTML's)", bad)
		}
	}
}

func TestHTMLEscapesAndInlinesFigures(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>R&amp;D &lt;report&gt;</title>",
		`<p class="verdict fail" id="verdict"><span class="fail">FAIL: 1 of 2</span></p>`,
		`<section id="cell-1"><h2>cell a|b: <span class="fail">FAIL</span></h2>`,
		`<td>x|y</td><td class="fail" title="&#34;quoted&#34; &lt;t&gt;">&lt;b&gt;&amp;amp;&lt;/b&gt;</td>`,
		`<a href="camp/runs/5.json">run 5</a>`,
		`<table id="empty"><tr><th>seq</th><th>cell</th></tr>` + "\n</table>",
		`<tr><th>stated: surface</th><td>wheels | air</td></tr>`,
		`<table class="form">`,
		"a &lt;script&gt;alert(1)&lt;/script&gt;",
		`<a href="#">evil</a>`,
		`<img alt="vibration score of kill" src="data:image/png;base64,iVBORyBmYWtl">`,
		`<svg xmlns="http://www.w3.org/2000/svg"><line/></svg>`,
		"off the plot: 1 &lt; 2",
		"no scored windows &amp; nothing to plot",
		`content="default-src 'none'; img-src data:; style-src 'unsafe-inline'"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "javascript:", "<b>&amp;", "http://", "https://", "<link"} {
		if strings.Contains(strings.ReplaceAll(page, "http://www.w3.org/2000/svg", ""), bad) {
			t.Errorf("page holds %q", bad)
		}
	}
}

func TestJUnitCountsAndEscapes(t *testing.T) {
	var b bytes.Buffer
	if err := JUnit(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), xml.Header) {
		t.Error("no XML header")
	}
	var doc Testsuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if doc.Name != "suite & <co>" || doc.Tests != 2 || doc.Failures != 1 || len(doc.Suites) != 2 {
		t.Fatalf("testsuites %q tests %d failures %d suites %d", doc.Name, doc.Tests, doc.Failures, len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Tests != 2 || s.Failures != 1 || s.Time != "0" {
		t.Errorf("suite: tests %d failures %d time %q", s.Tests, s.Failures, s.Time)
	}
	f := s.Cases[1].Failure
	if s.Cases[1].Name != `bad <one> & "two"` || f == nil || f.Message != "a < b & c" || f.Type != "FAIL" || f.Text != "line\n<x>" ||
		s.Cases[1].SystemOut != "]]> out" || s.Cases[0].Failure != nil {
		t.Errorf("cases read back: %+v", s.Cases)
	}
	if e := doc.Suites[1]; e.Tests != 0 || e.Failures != 0 {
		t.Errorf("an empty suite: %+v", e)
	}
	if strings.Contains(b.String(), "<one>") || strings.Contains(b.String(), "a < b") {
		t.Error("markup not escaped in the XML")
	}
}
