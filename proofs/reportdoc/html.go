package reportdoc

import (
	"encoding/base64"
	"html/template"
	"io"
	"net/url"
	"strconv"
	"strings"
)

const css = `body{font-family:sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#222;line-height:1.35}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #999;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#eee}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{background:#dff0d8}.fail{background:#f2dede;font-weight:bold}
span.fail,li.fail{background:none;color:#a00}
.verdict{font-size:1.4em;padding:.4em .8em;display:inline-block;border:2px solid #444}
figure{display:inline-block;margin:.3em;vertical-align:top}
figure img,figure svg{display:block;border:1px solid #ccc}
figcaption{font-weight:bold}
.form td{height:2.2em;min-width:18em}
small{color:#555}
@media print{figure{break-inside:avoid}}
`

// HTML writes the document as one self-contained page: inline CSS, figures inline, a
// Content-Security-Policy that forbids fetching anything (images only from data: URIs).
func HTML(w io.Writer, d *Document) error {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>` + esc(d.Title) + "</title>\n<style>\n" + css + "</style></head><body>\n<h1>" + esc(d.Title) + "</h1>\n")
	htmlBlocks(&b, d.Blocks)
	for _, s := range d.Sections {
		htmlSection(&b, s, 2)
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func attr(name, v string) string {
	if v == "" {
		return ""
	}
	return " " + name + `="` + esc(v) + `"`
}

func class(st Status, extra ...string) string {
	switch st {
	case Pass:
		extra = append(extra, "pass")
	case Fail:
		extra = append(extra, "fail")
	}
	return attr("class", strings.Join(extra, " "))
}

// safeHref keeps relative links and http(s)/mailto ones; anything else (javascript:, data:) is dropped.
func safeHref(h string) string {
	u, err := url.Parse(h)
	if err != nil {
		// a relative path whose first segment holds a colon ("a:b/c") is still a path
		if u, err = url.Parse("./" + h); err != nil {
			return "#"
		}
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https", "mailto":
		return u.String()
	}
	return "#"
}

func htmlText(t Text) string {
	var b strings.Builder
	for _, s := range t {
		x := esc(s.Text)
		if s.Code {
			x = "<code>" + x + "</code>"
		}
		if s.Strong {
			x = "<b>" + x + "</b>"
		}
		if s.Href != "" {
			x = `<a href="` + esc(safeHref(s.Href)) + `">` + x + "</a>"
		}
		if s.Status != Plain {
			x = "<span" + class(s.Status) + ">" + x + "</span>"
		}
		b.WriteString(x)
	}
	return b.String()
}

func htmlSection(b *strings.Builder, s Section, level int) {
	h := "h" + strconv.Itoa(min(level, 6))
	b.WriteString("<section" + attr("id", s.ID) + "><" + h + ">" + htmlText(s.Title) + "</" + h + ">\n")
	htmlBlocks(b, s.Blocks)
	for _, sub := range s.Sections {
		htmlSection(b, sub, level+1)
	}
	b.WriteString("</section>\n")
}

func htmlBlocks(b *strings.Builder, blocks []Block) {
	for _, bl := range blocks {
		switch x := bl.(type) {
		case Para:
			var cl []string
			if x.Box {
				cl = append(cl, "verdict")
			}
			t := htmlText(x.Text)
			if x.Small {
				t = "<small>" + t + "</small>"
			}
			b.WriteString("<p" + class(x.Status, cl...) + attr("id", x.ID) + ">" + t + "</p>\n")
		case List:
			if len(x.Items) == 0 {
				continue
			}
			b.WriteString("<ul>")
			for _, it := range x.Items {
				b.WriteString("<li>" + htmlText(it) + "</li>")
			}
			b.WriteString("</ul>\n")
		case Table:
			htmlTable(b, x)
		case Figure:
			b.WriteString("<figure>")
			if x.Title != "" {
				b.WriteString("<figcaption>" + esc(x.Title) + "</figcaption>")
			}
			switch {
			case x.Err != "":
				b.WriteString("<p>" + esc(x.Err) + "</p>")
			case len(x.PNG) > 0:
				b.WriteString(`<img alt="` + esc(x.Alt) + `" src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(x.PNG) + `">`)
			case len(x.SVG) > 0:
				b.Write(x.SVG)
			}
			if x.Caption != "" {
				b.WriteString("<p><small>" + esc(x.Caption) + "</small></p>")
			}
			b.WriteString("</figure>\n")
		}
	}
}

func htmlTable(b *strings.Builder, t Table) {
	var cl []string
	if t.Form {
		cl = append(cl, "form")
	}
	b.WriteString("<table" + attr("id", t.ID) + class(Plain, cl...) + ">")
	if len(t.Header) > 0 {
		b.WriteString("<tr>")
		for _, h := range t.Header {
			b.WriteString("<th>" + esc(h) + "</th>")
		}
		b.WriteString("</tr>\n")
	}
	for _, r := range t.Rows {
		b.WriteString("<tr" + class(r.Status) + ">")
		for i, c := range r.Cells {
			tag := "td"
			if i == 0 && t.RowHeads {
				tag = "th"
			}
			var ccl []string
			if c.Num {
				ccl = append(ccl, "num")
			}
			b.WriteString("<" + tag + class(c.Status, ccl...) + attr("title", c.Title) + ">" + htmlText(c.Text) + "</" + tag + ">")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}
