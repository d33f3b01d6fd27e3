package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/reportdoc"
	"github.com/rosorin/rosorin/proofs/stand"
)

// palette: one colour per motion of a path (the still-from mark takes its line's colour).
var palette = []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0xd6, 0x27, 0x28, 0xff}, {0x2c, 0xa0, 0x2c, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x8c, 0x56, 0x4b, 0xff}}

// PlotPath draws one path's lines of rep: each line's window scores against seconds after the trigger, the
// threshold, the trigger (x = 0) and each line's judged still-from, as a PNG.
func PlotPath(rep *stand.Report, path string) ([]byte, error) {
	for _, r := range rep.Results {
		if string(r.Path) == path && r.Trace != nil {
			return plotHold(r)
		}
	}
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
		if !r.Release && r.Verdict.Kind == vibration.KindStop && !math.IsNaN(r.StopS) {
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

// plotHold draws a hold path's timeline (stand.HoldTrace): the speed the board was told against seconds
// after the trigger, the still window (where it must be zero) and the deliberate act, as a PNG.
func plotHold(r stand.Result) ([]byte, error) {
	tr := r.Trace
	if len(tr.T) == 0 {
		return nil, fmt.Errorf("path %s: no board frames to plot", r.Path)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (%s)", r.Path, r.Outcome)
	p.X.Label.Text = "seconds after the trigger"
	p.Y.Label.Text = "speed the board was told (m/s, rad/s)"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var xy plotter.XYs
	ymax := 0.05
	for i := range tr.T {
		if i > 0 { // the board holds each frame until the next: draw steps
			xy = append(xy, plotter.XY{X: tr.T[i], Y: tr.Speed[i-1]})
		}
		xy = append(xy, plotter.XY{X: tr.T[i], Y: tr.Speed[i]})
		ymax = math.Max(ymax, tr.Speed[i])
	}
	ymax *= 1.2
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = palette[0], vg.Points(1.2)
	p.Add(l)
	p.Legend.Add("board: "+tr.Source, l)
	win, _ := plotter.NewPolygon(plotter.XYs{{X: tr.From, Y: 0}, {X: tr.To, Y: 0}, {X: tr.To, Y: ymax}, {X: tr.From, Y: ymax}})
	win.Color, win.LineStyle.Width = color.NRGBA{0x2c, 0xa0, 0x2c, 0x40}, 0
	p.Add(win)
	p.Legend.Add("still window (must be zero)", win)
	vline := func(x float64, col color.RGBA, dash []vg.Length) *plotter.Line {
		v, _ := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: ymax}})
		v.Color, v.Width, v.Dashes = col, vg.Points(1.5), dash
		p.Add(v)
		return v
	}
	p.Legend.Add("trigger", vline(0, color.RGBA{0x44, 0x44, 0x44, 0xff}, nil))
	p.Legend.Add("deliberate act", vline(tr.Act, palette[1], []vg.Length{vg.Points(4), vg.Points(2)}))
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

// HTML writes the report (Document) as one self-contained page: the baseline's verdicts, and for each run
// the stop-path table and a plot per path (PNG inline as data: URIs, a Content-Security-Policy that forbids
// fetching anything).
func HTML(w io.Writer, runs []ProofFile, cmp *Comparison) error {
	return reportdoc.HTML(w, Document(runs, cmp))
}
