package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/stand/prove"
)

// palette: one colour per motion of a path (the still-from mark takes its line's colour).
var palette = []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x8c, 0x56, 0x4b, 0xff}}

// PlotPath draws one path's lines of rep: each line's window scores against seconds after the trigger, the
// threshold, the trigger (x = 0) and each line's judged still-from, as a PNG.
func PlotPath(rep *prove.Report, path string) ([]byte, error) {
	p := plot.New()
	p.X.Label.Text = "seconds after the trigger"
	p.Y.Label.Text = "vibration score (rad/s)"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	xmin, xmax, ymax, thr := math.Inf(1), math.Inf(-1), 0.0, math.NaN()
	type mark struct {
		x   float64
		col color.RGBA
	}
	var marks []mark
	i := 0
	for _, r := range rep.Results {
		if string(r.Path) != path || len(r.Verdict.Windows) == 0 {
			continue
		}
		if p.Title.Text == "" {
			p.Title.Text = path
		}
		base := r.TriggerS
		if math.IsNaN(base) {
			base = r.Verdict.Trigger
		}
		var xy plotter.XYs
		for _, w := range r.Verdict.Windows {
			if w.NoData || math.IsNaN(w.Score) {
				continue
			}
			xy = append(xy, plotter.XY{X: w.End - base, Y: w.Score})
		}
		if len(xy) == 0 {
			continue
		}
		col := palette[i%len(palette)]
		i++
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = col, vg.Points(1.2)
		if r.Release {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		label := r.Motion + " " + r.Outcome.String()
		if r.Release {
			label = r.Motion + " release " + r.Outcome.String()
		}
		p.Legend.Add(label, l)
		for _, v := range xy {
			xmin, xmax, ymax = math.Min(xmin, v.X), math.Max(xmax, v.X), math.Max(ymax, v.Y)
		}
		thr = r.Verdict.Params.Threshold
		if !r.Release && r.Verdict.Kind == stand.KindStop && !math.IsNaN(r.StopS) {
			marks = append(marks, mark{r.StopS, col})
		}
	}
	if i == 0 {
		return nil, fmt.Errorf("path %s: no scored windows to plot", path)
	}
	if !math.IsNaN(thr) {
		ymax = math.Max(ymax, thr*1.3)
		t, _ := plotter.NewLine(plotter.XYs{{X: xmin, Y: thr}, {X: xmax, Y: thr}})
		t.Color, t.Width, t.Dashes = color.RGBA{0, 0, 0, 0xff}, vg.Points(1), []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(t)
		p.Legend.Add(fmt.Sprintf("threshold %.4f", thr), t)
	}
	vline := func(x float64, col color.RGBA, w vg.Length, dash []vg.Length) *plotter.Line {
		l, _ := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: ymax}})
		l.Color, l.Width, l.Dashes = col, w, dash
		p.Add(l)
		return l
	}
	p.Legend.Add("trigger", vline(0, color.RGBA{0x44, 0x44, 0x44, 0xff}, vg.Points(2), nil))
	for k, m := range marks {
		l := vline(m.x, m.col, vg.Points(1.5), []vg.Length{vg.Points(2), vg.Points(2)})
		if k == 0 {
			p.Legend.Add("judged still from", l)
		}
	}
	p.Y.Min, p.Y.Max = 0, ymax
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	wt, err := p.WriterTo(7*vg.Inch, 3*vg.Inch, "png")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type htmlPlot struct {
	Path string
	Img  template.URL
	Err  string
}

type htmlRun struct {
	Name, Tool, Target, Fault, Result, Rejudged string
	Motions                                     []string
	Rows                                        []htmlRow
	Plots                                       []htmlPlot
	Failed                                      []string
}

type htmlRow struct {
	Label string
	Cells []htmlCell
}

type htmlCell struct {
	Text  string
	Class string
	Title string
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>Stop proof report</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #999;padding:.25em .6em;text-align:left}
th{background:#eee}
td.pass{background:#dff0d8}td.fail{background:#f2dede;font-weight:bold}
.regress{color:#a00;font-weight:bold}
img{display:block;margin:.5em 0;border:1px solid #ccc}
</style></head><body>
<h1>Stop proof report</h1>
{{if .Cmp}}<h2>Against the baseline</h2>
<p>Baseline {{.Cmp.Baseline}}, tolerance {{.Cmp.Tolerance}}.</p>
{{if .Cmp.Regressions}}<ul>{{range .Cmp.Regressions}}<li class="regress">REGRESSION: {{.}}</li>{{end}}</ul>{{else}}<p>No regression.</p>{{end}}
{{if .Cmp.Notes}}<ul>{{range .Cmp.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
{{range .Runs}}<h2>{{.Name}}</h2>
<p>{{.Tool}}; target {{.Target}}{{if .Fault}}; fault <code>{{.Fault}}</code> (negative control: every line must FAIL){{end}}</p>
{{if .Rejudged}}<p>{{.Rejudged}}</p>{{end}}
<table id="stop-paths"><tr><th>stop path</th>{{range .Motions}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Label}}</td>{{range .Cells}}<td class="{{.Class}}" title="{{.Title}}">{{.Text}}</td>{{end}}</tr>
{{end}}</table>
<p><b>{{.Result}}</b></p>
{{if .Failed}}<ul>{{range .Failed}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Plots}}<h3>{{.Path}}</h3>{{if .Err}}<p>{{.Err}}</p>{{else}}<img alt="vibration score of {{.Path}}" src="{{.Img}}">{{end}}
{{end}}{{end}}
</body></html>
`))

// HTML writes one self-contained page: for each run the stop-path table and a plot per path (PNG inline as
// data: URIs, a Content-Security-Policy that forbids fetching anything), and the baseline's verdicts.
func HTML(w io.Writer, runs []Run, cmp *Comparison) error {
	data := struct {
		Runs []htmlRun
		Cmp  *Comparison
	}{Cmp: cmp}
	for _, run := range runs {
		rep := run.Report
		hr := htmlRun{Name: run.Name, Tool: rep.Tool, Target: rep.Target, Fault: rep.Fault, Result: rep.ResultLine()}
		if rj := run.Rejudged; rj != nil {
			if len(rj.Differences) > 0 {
				hr.Rejudged = fmt.Sprintf("Re-judged from the recording: DIFFERS from the live run in %d lines.", len(rj.Differences))
			} else {
				hr.Rejudged = fmt.Sprintf("Re-judged from the recording: the same verdicts and times as the live run (%d lines).", rj.Judged)
			}
		}
		motions, rows := layout(rep)
		hr.Motions = motions
		var paths []string
		for _, k := range rows {
			row := htmlRow{Label: rowLabel(rep, k)}
			for _, m := range motions {
				c := htmlCell{Text: "-"}
				for _, r := range rep.Results {
					if KeyOf(r) == (Key{k.Path, m, k.Release}) {
						c = htmlCell{Text: cell(r), Class: "fail", Title: r.Line}
						if r.Outcome == stand.Pass {
							c.Class = "pass"
						}
					}
				}
				row.Cells = append(row.Cells, c)
			}
			hr.Rows = append(hr.Rows, row)
			if !k.Release {
				paths = append(paths, k.Path)
			}
		}
		for _, r := range rep.Results {
			if r.Outcome != stand.Pass {
				hr.Failed = append(hr.Failed, fmt.Sprintf("%s: %s %s", r.Name, r.Outcome, r.Reason))
			}
		}
		for _, path := range paths {
			png, err := PlotPath(rep, path)
			if err != nil {
				hr.Plots = append(hr.Plots, htmlPlot{Path: path, Err: err.Error()})
				continue
			}
			hr.Plots = append(hr.Plots, htmlPlot{Path: path, Img: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))})
		}
		data.Runs = append(data.Runs, hr)
	}
	return page.Execute(w, data)
}
