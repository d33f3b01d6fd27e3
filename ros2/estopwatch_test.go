package ros2

import (
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/ros2/dds"
)

// TestEStopWatch: an announced e-stop sample that does not arrive within the repair time, or is missing
// when its writer leaves, latches once; samples that arrive (or that the writer said were not for this
// reader) never do.
func TestEStopWatch(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	wp := func(h uint64, ann, next int64) dds.WriterProgress {
		return dds.WriterProgress{Writer: h, Announced: ann, Next: next, Known: true}
	}
	type poll struct {
		ms    int
		p     []dds.WriterProgress
		latch string // substring of the reason, "" = must not latch
	}
	cases := []struct {
		name  string
		polls []poll
	}{
		{"delivered", []poll{
			{0, []dds.WriterProgress{wp(1, 0, 1)}, ""},
			{20, []dds.WriterProgress{wp(1, 1, 1)}, ""}, // heartbeat first, data repaired within the repair time
			{40, []dds.WriterProgress{wp(1, 1, 2)}, ""},
			{2000, []dds.WriterProgress{wp(1, 1, 2)}, ""},
			{2020, nil, ""}, // leaves with nothing missing
		}},
		{"never-wrote", []poll{
			{0, []dds.WriterProgress{wp(1, 0, 1)}, ""},
			{5000, []dds.WriterProgress{wp(1, 0, 1)}, ""},
			{5020, nil, ""},
		}},
		{"announced-never-arrives", []poll{
			{0, []dds.WriterProgress{wp(1, 1, 1)}, ""},
			{999, []dds.WriterProgress{wp(1, 1, 1)}, ""},
			{1000, []dds.WriterProgress{wp(1, 1, 1)}, "did not arrive within 1s"},
			{1020, []dds.WriterProgress{wp(1, 1, 1)}, ""}, // once per loss
			{3000, nil, ""}, // its leaving does not latch again
		}},
		{"left-with-a-hole", []poll{
			{0, []dds.WriterProgress{wp(7, 0, 1)}, ""},
			{20, []dds.WriterProgress{wp(7, 1, 1)}, ""},
			{40, nil, ""},  // a sample taken after the last poll would still count
			{139, nil, ""}, // within the grace
			{140, nil, "left the graph with 1 announced sample"},
			{160, nil, ""}, // once
		}},
		{"delivered-between-polls-then-left", []poll{
			{0, []dds.WriterProgress{wp(8, 1, 1)}, ""},
			{10, nil, "received"}, // a sample from writer 8 at 10 ms (see below)
			{20, nil, ""},
			{500, nil, ""},
		}},
		{"one-reader-has-it", []poll{ // transient-local and catch-up readers: either one's sample counts
			{0, []dds.WriterProgress{wp(3, 1, 1), wp(3, 1, 2)}, ""},
			{1500, []dds.WriterProgress{wp(3, 1, 1), wp(3, 1, 2)}, ""},
			{1520, nil, ""},
		}},
		{"unknown-ignored", []poll{
			{0, []dds.WriterProgress{{Writer: 4}}, ""},
			{2000, []dds.WriterProgress{{Writer: 4}}, ""},
		}},
		{"second-loss-latches-again", []poll{
			{0, []dds.WriterProgress{wp(5, 1, 1)}, ""},
			{1000, []dds.WriterProgress{wp(5, 1, 1)}, "did not arrive"},
			{1100, []dds.WriterProgress{wp(5, 1, 2)}, ""},
			{1200, []dds.WriterProgress{wp(5, 2, 2)}, ""},
			{2200, []dds.WriterProgress{wp(5, 2, 2)}, "did not arrive"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := estopWatch{repair: time.Second}
			for _, p := range c.polls {
				if p.latch == "received" {
					w.receivedFrom(8, at(p.ms))
					continue
				}
				got := w.observe(at(p.ms), p.p)
				switch {
				case p.latch == "" && got != "":
					t.Errorf("at %d ms: latched %q, want nothing", p.ms, got)
				case p.latch != "" && !strings.Contains(got, p.latch):
					t.Errorf("at %d ms: reason %q, want one with %q", p.ms, got, p.latch)
				}
			}
		})
	}
}
