package campaign

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

var (
	colData  = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	colReq   = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	colBound = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	colGrey  = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

// svgOf draws p as SVG markup to put inline in the page (no XML prologue; nothing fetched).
func svgOf(p *plot.Plot, w, h vg.Length) (template.HTML, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("the plot's SVG has no <svg> element")
	}
	return template.HTML(s[i:]), nil
}

// ECDF draws a cell's empirical distribution of one quantity: the fraction of its counted runs at or below
// each value, the requirement (red), the tolerance bound (green, dashed) and the bounded quantile (grey,
// dotted). Runs without a value (never still) are off the plot: the curve then ends below 1.
func ECDF(cr CellResult, d Dist, vals []float64) (*plot.Plot, error) {
	var fin []float64
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			fin = append(fin, v)
		}
	}
	sort.Float64s(fin)
	p := plot.New()
	p.Title.Text = cellName(cr.Cell) + ": " + d.what()
	p.X.Label.Text = d.what()
	p.Y.Label.Text = "fraction of the runs at or below"
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs = vg.Points(4)
	n := float64(len(vals))
	xmax := 0.0
	for _, x := range []float64{float64(d.Requirement), float64(d.Bound), float64(d.Worst)} {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			xmax = math.Max(xmax, x)
		}
	}
	if len(fin) > 0 {
		xmax = math.Max(xmax, fin[len(fin)-1])
	}
	if xmax == 0 {
		xmax = 1
	}
	xmax *= 1.15
	if len(fin) > 0 {
		xy := plotter.XYs{{X: 0, Y: 0}}
		for i, x := range fin {
			xy = append(xy, plotter.XY{X: x, Y: float64(i) / n}, plotter.XY{X: x, Y: float64(i+1) / n})
		}
		xy = append(xy, plotter.XY{X: xmax, Y: float64(len(fin)) / n})
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = colData, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%d runs", len(vals)), l)
		pts, _ := plotter.NewScatter(func() plotter.XYs {
			var s plotter.XYs
			for i, x := range fin {
				s = append(s, plotter.XY{X: x, Y: float64(i+1) / n})
			}
			return s
		}())
		pts.Color, pts.Radius = colData, vg.Points(1.5)
		p.Add(pts)
	}
	vline := func(x float64, col color.RGBA, dash []vg.Length, label string) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		l, _ := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 1.02}})
		l.Color, l.Width, l.Dashes = col, vg.Points(1.5), dash
		p.Add(l)
		p.Legend.Add(label, l)
	}
	vline(float64(d.Requirement), colReq, nil, "requirement "+withUnit(d.Requirement, d.Unit))
	if cr.BoundK > 0 {
		vline(float64(d.Bound), colBound, []vg.Length{vg.Points(5), vg.Points(3)}, "bound "+withUnit(d.Bound, d.Unit))
		h, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: cr.BoundP}, {X: xmax, Y: cr.BoundP}})
		h.Color, h.Width, h.Dashes = colGrey, vg.Points(0.8), []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(h)
		p.Legend.Add("p = "+fmtP(cr.BoundP), h)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, xmax, 0, 1.05
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return p, nil
}

type htmlCell struct {
	CellResult
	Name  string
	Rows  []htmlDist
	Plots []template.HTML
	Err   string
}

type htmlDist struct {
	Label, N, Failures, Worst, Bound, Req, MarginB, MarginW, Restart, Verdict string
	Class                                                                     string
	Stats                                                                     []string
	What, Off                                                                 string // Off: the runs off the plot
}

var verifyPage = template.Must(template.New("verify").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>Verification report: {{.S.Name}}</title>
<style>
body{font-family:sans-serif;margin:1.5em auto;max-width:72em;color:#222;line-height:1.35}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #999;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#eee}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{background:#dff0d8}.fail{background:#f2dede;font-weight:bold}
.verdict{font-size:1.4em;padding:.4em .8em;display:inline-block;border:2px solid #444}
.warn{color:#a00;font-weight:bold}
.plots svg{display:inline-block;margin:.3em;border:1px solid #ccc;vertical-align:top}
.sign td{height:2.2em;min-width:18em}
small{color:#555}
@media print{.plots svg{break-inside:avoid}}
</style></head><body>
<h1>Verification report: {{.S.Name}}</h1>
<p class="verdict {{.VerdictClass}}" id="verdict">{{.S.Verdict}}: {{.Passing}} of {{len .S.Cells}} cells pass</p>
<p>{{.S.Proof}} proof; runs from {{.Start}} to {{.End}}; campaign folders: {{range $i, $f := .S.Folders}}{{if $i}}, {{end}}<code>{{$f}}</code>{{end}}.</p>

<h2 id="claim">The claim and its basis</h2>
<p><b>R = {{.R}}, C = {{.C}}, n = {{.S.Method.N}} runs a cell.</b> Method: {{.S.Method.Basis}}.</p>
<p><b>A success:</b> {{.S.Method.Success}}.</p>
<p><b>What the claim says:</b> {{.S.Method.Says}}.</p>
<p><b>What it does not say:</b></p><ul>{{range .S.Method.Limits}}<li>{{.}}</li>{{end}}</ul>
<p><b>The tolerance bound:</b> {{.S.Method.Bound}}.</p>

<h2 id="summary-h">Summary</h2>
<table id="summary"><tr><th>cell</th><th>n</th><th>failures</th><th>worst</th><th>bound (order statistic, quantile @ confidence)</th><th>requirement</th><th>margin to the bound</th><th>margin to the worst</th><th>no restart</th><th>verdict</th></tr>
{{range .Cells}}{{range .Rows}}<tr><td>{{.Label}}</td><td class="num">{{.N}}</td><td class="num">{{.Failures}}</td><td class="num">{{.Worst}}</td><td>{{.Bound}}</td><td class="num">{{.Req}}</td><td class="num">{{.MarginB}}</td><td class="num">{{.MarginW}}</td><td class="num">{{.Restart}}</td><td class="{{.Class}}">{{.Verdict}}</td></tr>
{{end}}{{end}}</table>

<h2>Per cell</h2>
{{range .Cells}}<section class="cell" id="cell-{{.ID}}">
<h3>{{.Name}}: <span class="{{if eq .Verdict "PASS"}}pass{{else}}fail{{end}}">{{.Verdict}}</span></h3>
<p><b>Claim:</b> {{.Claim}}.<br><b>Bound:</b> {{.BoundText}}.</p>
{{if .Reasons}}<ul>{{range .Reasons}}<li class="warn">FAIL: {{.}}</li>{{end}}</ul>{{end}}
{{if .Notes}}<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Failed}}<p>Runs that did not succeed:</p><ul>{{range .Failed}}<li><a href="{{.File}}">run {{.Seq}}</a> (rep {{.Rep}}, {{.Outcome}}): {{.Why}}</li>{{end}}</ul>{{end}}
<table class="stats"><tr><th></th><th>min</th><th>median</th><th>mean</th><th>sd</th><th>p95</th><th>max</th></tr>
{{range .Rows}}<tr><td>{{.What}}</td>{{range .Stats}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</table>
{{if .Cut}}<p>{{.Cut}} CUT record(s): kept on record below, not counted.</p>{{end}}
<div class="plots">{{range .Plots}}{{.}}{{end}}</div>{{if .Err}}<p>{{.Err}}</p>{{end}}
<p><small>The plot: the fraction of the cell's counted runs whose value is at or below each value (the empirical distribution); red the requirement, green dashed the tolerance bound, grey dotted the quantile it bounds.{{range .Rows}}{{if .Off}} {{.Off}}{{end}}{{end}}</small></p>
</section>
{{end}}

<h2 id="conditions-h">Conditions</h2>
<table id="conditions">{{range .Conds}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table>
{{if .S.Conditions.Warnings}}<ul>{{range .S.Conditions.Warnings}}<li class="warn">WARNING: {{.}}</li>{{end}}</ul>{{end}}

<h2 id="cut">CUT runs (never counted)</h2>
{{if .S.Cut}}<ul>{{range .S.Cut}}<li><a href="{{.Record}}">run {{.Seq}}</a>, {{.Cell}} rep {{.Rep}}: {{.Reason}}</li>{{end}}</ul>{{else}}<p>None.</p>{{end}}

<h2 id="runs-h">Runs</h2>
<table id="runs"><tr><th>seq</th><th>cell</th><th>rep</th><th>outcome</th><th>time to still</th><th>travel</th><th>no restart</th><th>start (UTC)</th><th>shard / robot</th><th>evidence</th></tr>
{{range .Runs}}<tr class="{{if .Success}}{{else}}fail{{end}}"><td class="num">{{.Seq}}</td><td>{{.Cell}}</td><td class="num">{{.Rep}}</td><td>{{.Outcome}}</td><td class="num">{{.Still}}</td><td class="num">{{.Travel}}</td><td>{{.NoRestart}}</td><td>{{.Start}}</td><td>{{.Where}}</td><td><a href="{{.Record}}">record</a>{{if .Evidence}} <a href="{{.Evidence}}">log</a>{{end}}{{if .MCAP}} <a href="{{.MCAP}}">mcap</a>{{end}}{{if .Absent}} <span class="warn">absent: {{.Absent}}</span>{{end}}</td></tr>
{{end}}</table>

<h2 id="sign">Assessment</h2>
<table class="sign"><tr><th>assessed by</th><td></td></tr><tr><th>role</th><td></td></tr><tr><th>date</th><td></td></tr><tr><th>signature</th><td></td></tr></table>
<p><small>Written by stopproof report --campaign from the campaign folders named above; every number on this page is in their run records.</small></p>
</body></html>
`))

type htmlRunRow struct {
	Seq, Rep                                                                   int
	Cell, Outcome, Still, Travel, Start, Where, Record, Evidence, MCAP, Absent string
	NoRestart                                                                  string
	Success                                                                    bool
}

// HTML writes the verification report as one self-contained page: inline CSS, the plots as inline SVG, a
// Content-Security-Policy that forbids fetching anything; links to each run's record and evidence are
// relative (they work while the page stays where it was written beside the campaign folders).
func (s *Summary) HTML(w io.Writer) error {
	data := struct {
		S                        *Summary
		VerdictClass, Start, End string
		R, C                     string
		Passing                  int
		Cells                    []htmlCell
		Conds                    [][2]string
		Runs                     []htmlRunRow
	}{S: s, Start: stamp(s.Start), End: stamp(s.End), R: fmtP(s.Method.R), C: pct(s.Method.C), Passing: s.passing(), Conds: s.conditionRows()}
	data.VerdictClass = "fail"
	if s.Verdict == Pass {
		data.VerdictClass = "pass"
	}
	for _, cr := range s.Cells {
		hc := htmlCell{CellResult: cr, Name: cellName(cr.Cell)}
		for _, d := range cr.dists() {
			row := htmlDist{Label: cellName(cr.Cell) + d.label(), N: fmt.Sprintf("%d of %d", cr.N, cr.Planned), Failures: fmt.Sprint(cr.Failures),
				Worst: withUnit(d.Worst, d.Unit), Bound: boundCol(cr, *d), Req: withUnit(d.Requirement, d.Unit), MarginB: withUnit(d.MarginBound, d.Unit),
				MarginW: withUnit(d.MarginWorst, d.Unit), Restart: fmt.Sprintf("%d of %d", cr.N-cr.Restarts, cr.N), Verdict: cr.Verdict, Class: "fail", What: d.what()}
			if cr.Verdict == Pass {
				row.Class = "pass"
			}
			for _, x := range []Num{d.Min, d.Median, d.Mean, d.SD, d.P95, d.Max} {
				row.Stats = append(row.Stats, fmtNum(float64(x)))
			}
			if d.Missing > 0 {
				row.Off = fmt.Sprintf("%d of the %d runs have no %s (never still, or not measured): they are off the plot, and the curve ends at %d of %d.", d.Missing, cr.N, d.what(), d.Values, cr.N)
			}
			hc.Rows = append(hc.Rows, row)
			var vals []float64
			for _, r := range s.Runs {
				if r.Cell == cr.ID {
					if d.Unit == "m" {
						vals = append(vals, float64(r.TravelM))
					} else {
						vals = append(vals, float64(r.StillS))
					}
				}
			}
			p, err := ECDF(cr, *d, vals)
			if err == nil {
				var svg template.HTML
				if svg, err = svgOf(p, 5.2*vg.Inch, 3.2*vg.Inch); err == nil {
					hc.Plots = append(hc.Plots, svg)
				}
			}
			if err != nil {
				hc.Err = err.Error()
			}
		}
		data.Cells = append(data.Cells, hc)
	}
	for _, r := range append(append([]RunLink{}, s.Runs...), s.Cut...) {
		row := htmlRunRow{Seq: r.Seq, Rep: r.Rep, Cell: r.Cell, Outcome: r.outcomeText(), Still: withUnit(r.StillS, "s"), Travel: withUnit(r.TravelM, "m"),
			Start: stamp(r.Start), Record: r.Record, Evidence: r.Evidence, MCAP: r.MCAP, Absent: strings.Join(r.Absent, ", "),
			NoRestart: fmt.Sprint(r.NoRestart), Success: r.Success}
		if r.Outcome == Cut {
			row.NoRestart = "-"
		}
		row.Where = fmt.Sprintf("robot %d", r.Worker)
		if r.Shard != "" {
			row.Where = "shard " + r.Shard + ", robot " + fmt.Sprint(r.Worker)
		}
		data.Runs = append(data.Runs, row)
	}
	sort.SliceStable(data.Runs, func(i, j int) bool { return data.Runs[i].Seq < data.Runs[j].Seq })
	return verifyPage.Execute(w, data)
}
