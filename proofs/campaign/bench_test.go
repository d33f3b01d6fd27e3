package campaign

import (
	"io"
	"testing"
)

// The long campaign: 59 runs x 25 cells (1475 run records), loaded, judged and rendered.
func BenchmarkReport59x25(b *testing.B) {
	p := standPlan()
	p.R, p.C = 0.95, 0.95
	p.Cells = nil
	for i := 0; i < 25; i++ {
		p.Cells = append(p.Cells, Cell{Path: "estop", Speed: 0.05 + 0.01*float64(i), MaxStillS: 0.5})
	}
	dir := campaignDir(b, synth{plan: p, seed: 9})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := LoadCampaign(dir)
		if err != nil {
			b.Fatal(err)
		}
		s := Summarize(c, "")
		if err := s.HTML(io.Discard); err != nil {
			b.Fatal(err)
		}
		if err := s.JUnit(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
