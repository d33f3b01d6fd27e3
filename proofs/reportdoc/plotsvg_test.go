package reportdoc

import (
	"bytes"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// TestPlotSVG: the markup starts at the <svg> element (the prologue cut) and is a whole document.
func TestPlotSVG(t *testing.T) {
	p := plot.New()
	p.Title.Text = "a & b"
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	b, err := PlotSVG(p, 3*vg.Inch, 2*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("<svg")) || !bytes.Contains(b, []byte("</svg>")) || bytes.Contains(b, []byte("<?xml")) {
		t.Errorf("markup:\n%.300s", b)
	}
}
