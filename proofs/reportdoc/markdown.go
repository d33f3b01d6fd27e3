package reportdoc

import (
	"io"
	"strings"
)

// Markdown writes the document as GitHub Flavored Markdown: `#` headings by depth, tables with `|` escaped
// in cells, a key: value table as a list, links as [text](href). Figures and forms are left out.
func Markdown(w io.Writer, d *Document) error {
	var b strings.Builder
	b.WriteString("# " + mdLine(d.Title) + "\n")
	mdBlocks(&b, d.Blocks)
	for _, s := range d.Sections {
		mdSection(&b, s, 2)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdSection(b *strings.Builder, s Section, level int) {
	b.WriteString("\n" + strings.Repeat("#", min(level, 6)) + " " + mdText(s.Title, false) + "\n")
	mdBlocks(b, s.Blocks)
	for _, sub := range s.Sections {
		mdSection(b, sub, level+1)
	}
}

func mdBlocks(b *strings.Builder, blocks []Block) {
	for _, bl := range blocks {
		switch x := bl.(type) {
		case Para:
			t := mdText(x.Text, false)
			if x.Box {
				t = "**" + t + "**"
			}
			b.WriteString("\n" + t + "\n")
		case List:
			if len(x.Items) == 0 {
				continue
			}
			b.WriteString("\n")
			for _, it := range x.Items {
				b.WriteString("- " + mdText(it, false) + "\n")
			}
		case Table:
			mdTable(b, x)
		}
	}
}

func mdTable(b *strings.Builder, t Table) {
	if t.Form {
		return
	}
	if len(t.Header) == 0 && t.RowHeads {
		if len(t.Rows) > 0 {
			b.WriteString("\n")
		}
		for _, r := range t.Rows {
			var vals []string
			for _, c := range r.Cells[min(1, len(r.Cells)):] {
				vals = append(vals, mdText(c.Text, false))
			}
			key := ""
			if len(r.Cells) > 0 {
				key = mdText(r.Cells[0].Text, false)
			}
			b.WriteString("- " + key + ": " + strings.Join(vals, "; ") + "\n")
		}
		return
	}
	cols := len(t.Header)
	for _, r := range t.Rows {
		cols = max(cols, len(r.Cells))
	}
	if cols == 0 {
		return
	}
	b.WriteString("\n|")
	for i := range cols {
		h := ""
		if i < len(t.Header) {
			h = mdCell(T(t.Header[i]))
		}
		b.WriteString(" " + h + " |")
	}
	b.WriteString("\n|" + strings.Repeat("---|", cols) + "\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for i := range cols {
			c := ""
			if i < len(r.Cells) {
				c = mdCell(r.Cells[i].Text)
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
}

// mdCell keeps a cell on its line and out of the table's syntax.
func mdCell(t Text) string { return mdText(t, true) }

func mdText(t Text, cell bool) string {
	var b strings.Builder
	for _, s := range t {
		txt := mdLine(s.Text)
		if cell {
			txt = strings.ReplaceAll(txt, "|", `\|`)
		}
		switch {
		case s.Href != "":
			href := strings.NewReplacer(" ", "%20", ")", "%29", "|", "%7C").Replace(mdLine(s.Href))
			b.WriteString("[" + strings.NewReplacer("[", `\[`, "]", `\]`).Replace(txt) + "](" + href + ")")
		case s.Code && txt != "":
			b.WriteString("`" + txt + "`")
		case s.Strong && txt != "":
			b.WriteString("**" + txt + "**")
		default:
			b.WriteString(txt)
		}
	}
	return b.String()
}

// mdLine keeps text on its line.
func mdLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
