package reportdoc

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotSVG draws p, w by h, as the markup a Figure's SVG holds: the <svg> element alone (no XML prologue),
// put inline in the page and fetching nothing. The campaign's reports and the service stops' plots use it.
func PlotSVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	i := bytes.Index(b.Bytes(), []byte("<svg"))
	if i < 0 {
		return nil, fmt.Errorf("the plot's SVG has no <svg> element")
	}
	return b.Bytes()[i:], nil
}
