package reportdoc

// Status marks a cell, a span, a row or a paragraph as good or bad news; the HTML colours it, markdown and
// JUnit carry it in the words next to it.
type Status int

const (
	Plain Status = iota
	Pass
	Fail
)

// Document is one report.
type Document struct {
	Title string
	// Blocks come before the first section (the verdict, the claim).
	Blocks   []Block
	Sections []Section
	// TestsName names JUnit's testsuites element; Suites are its test suites.
	TestsName string
	Suites    []Testsuite
}

// Section is a heading and what is under it; nested sections are one heading level down.
type Section struct {
	Title    Text
	ID       string // the HTML anchor ("" none)
	Blocks   []Block
	Sections []Section
}

// Block is a Para, a List, a Table or a Figure.
type Block interface{ block() }

// Span is a run of text: plain, strong, code or a link, with a status.
type Span struct {
	Text   string
	Href   string // a link (relative paths stay relative)
	Strong bool
	Code   bool
	Status Status
}

// Text is a line of spans.
type Text []Span

// T is plain text of its parts.
func T(parts ...string) Text {
	var t Text
	for _, p := range parts {
		t = append(t, Span{Text: p})
	}
	return t
}

// Strong is a strong span; Code a code span; Link a link.
func Strong(s string) Span            { return Span{Text: s, Strong: true} }
func Code(s string) Span              { return Span{Text: s, Code: true} }
func Link(s, href string) Span        { return Span{Text: s, Href: href} }
func Marked(s string, st Status) Span { return Span{Text: s, Status: st} }

// String is the text without its markup.
func (t Text) String() string {
	s := ""
	for _, sp := range t {
		s += sp.Text
	}
	return s
}

// Para is a paragraph. Box makes it the report's verdict box (markdown: strong); Small a footnote.
type Para struct {
	Text   Text
	ID     string
	Status Status
	Box    bool
	Small  bool
}

// List is a bulleted list.
type List struct {
	Items []Text
}

// Table is a table. Header names the columns; with RowHeads each row's first cell is its heading, and a
// table with RowHeads and no Header is a list of key: value pairs (markdown writes it as such). A Form is an
// empty form to fill in on paper: in HTML only.
type Table struct {
	ID       string
	Header   []string
	Rows     []Row
	RowHeads bool
	Form     bool
}

// Row is a table row; a row's Status colours the whole row.
type Row struct {
	Cells  []Cell
	Status Status
}

// Cell is a table cell: its text, its status, a tooltip (Title) and whether it is a number (right-aligned).
type Cell struct {
	Text   Text
	Status Status
	Title  string
	Num    bool
}

// C is a plain cell; NumC a number cell.
func C(s string) Cell    { return Cell{Text: T(s)} }
func NumC(s string) Cell { return Cell{Text: T(s), Num: true} }

// Figure is a plot: PNG bytes (put inline as a data: URI) or SVG markup (put inline as it is: it must come
// from a trusted plotter, never from input), with a title, an alt text and a caption. Err replaces a plot
// that could not be drawn. Markdown leaves figures out.
type Figure struct {
	Title   string
	Alt     string
	PNG     []byte
	SVG     []byte
	Caption string
	Err     string
}

func (Para) block()   {}
func (List) block()   {}
func (Table) block()  {}
func (Figure) block() {}
