package campaign

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var (
	colData  = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	colReq   = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	colBound = color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	colGrey  = color.RGBA{0x55, 0x55, 0x55, 0xff}
)

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
