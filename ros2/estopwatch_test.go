package ros2

import (
	"errors"
	"fmt"
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
			{30, nil, "received"},
			{40, []dds.WriterProgress{wp(1, 1, 2)}, ""},
			{2000, []dds.WriterProgress{wp(1, 1, 2)}, ""},
			{2020, nil, ""}, // leaves with nothing missing
			{3000, nil, ""},
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
		{"left-with-a-hole", []poll{ // (a writer seen for 6 s: not a silent one-shot)
			{0, []dds.WriterProgress{wp(7, 0, 1)}, ""},
			{6000, []dds.WriterProgress{wp(7, 1, 1)}, ""},
			{6020, nil, ""}, // a sample taken after the last poll would still count
			{6319, nil, ""}, // within the grace
			{6320, nil, "left the graph with 1 announced sample"},
			{6340, nil, ""}, // once
		}},
		{"delivered-between-polls-then-left", []poll{
			{0, []dds.WriterProgress{wp(8, 1, 1)}, ""},
			{10, nil, "received"}, // a sample from writer 8 at 10 ms (see below)
			{20, nil, ""},
			{1000, nil, ""},
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
		{"one-shot-came-and-went-silent", []poll{
			{0, []dds.WriterProgress{wp(9, 0, 1)}, ""},
			{120, nil, ""},
			{419, nil, ""}, // within the grace
			{420, nil, "came and went within 0.12 s"},
			{440, nil, ""},
		}},
		{"one-shot-sample-arrived", []poll{
			{0, []dds.WriterProgress{wp(10, 0, 1)}, ""},
			{50, nil, "received"}, // a sample from writer 10 (see below)
			{120, nil, ""},
			{1000, nil, ""},
		}},
		{"silent-long-lived-leaves", []poll{ // an idle teleop's e-stop button
			{0, []dds.WriterProgress{wp(11, 0, 1)}, ""},
			{5001, []dds.WriterProgress{wp(11, 0, 1)}, ""},
			{5020, nil, ""},
			{6000, nil, ""},
		}},
		{"best-effort-one-shot", []poll{ // listed by the best-effort reader only (Next 1, nothing announced)
			{0, []dds.WriterProgress{{Writer: 12, Next: 1, Known: true}}, ""},
			{100, nil, ""},
			{400, nil, "came and went"},
		}},
		{"no-heartbeat-yet", []poll{ // Progress reports 0 announced before a heartbeat
			{0, []dds.WriterProgress{wp(13, 0, 1)}, ""},
			{6000, []dds.WriterProgress{wp(13, 0, 1)}, ""},
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
			w := estopWatch{repair: time.Second, oneShot: 5 * time.Second}
			for _, p := range c.polls {
				if p.latch == "received" {
					for _, h := range []uint64{1, 8, 10} { // the cases' writers that send a sample
						w.receivedFrom(h, at(p.ms))
					}
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

// fakeProgress is an e-stop reader for pollEStopWriters: its writers' progress, or an error.
type fakeProgress struct {
	p   []dds.WriterProgress
	err error
}

func (f fakeProgress) Progress(dst []dds.WriterProgress) ([]dds.WriterProgress, error) {
	return append(dst, f.p...), f.err
}

func (f fakeProgress) MatchedWriters(dst []uint64) ([]uint64, error) {
	for _, p := range f.p {
		dst = append(dst, p.Writer)
	}
	return dst, f.err
}

// TestPollEStopWritersErrors: a reader that fails, or a writer whose state cannot be read, is an error of
// the poll, never a silent "nothing to see"; the other readers are still read, and an unreadable writer is
// still listed, so the come-and-go rule judges it (a one-shot that leaves latches); with the internals off,
// every reader is read for its matched writers alone.
func TestPollEStopWritersErrors(t *testing.T) {
	wp := func(h uint64, ann, next int64, known bool) dds.WriterProgress {
		return dds.WriterProgress{Writer: h, Announced: ann, Next: next, Known: known}
	}
	boom := errors.New("dds: matched publications: bad parameter")
	p, err := pollEStopWriters([]progressReader{
		fakeProgress{err: boom},
		fakeProgress{p: []dds.WriterProgress{wp(2, 3, 4, true), wp(9, 0, 0, false)}},
		fakeProgress{p: []dds.WriterProgress{wp(5, 0, 0, true)}},
	}, []bool{true, true, false}, false)
	if err == nil || !errors.Is(err, boom) || !strings.Contains(err.Error(), "reader 1: the reliable-protocol state of 1 matched writer(s) could not be read") {
		t.Fatalf("poll error %v: want both the failing reader and the unreadable writer", err)
	}
	want := []dds.WriterProgress{wp(2, 3, 4, true), wp(9, 0, 1, true), wp(5, 0, 1, true)}
	if fmt.Sprint(p) != fmt.Sprint(want) {
		t.Fatalf("progress %v, want %v", p, want)
	}
	if _, err := pollEStopWriters([]progressReader{fakeProgress{p: []dds.WriterProgress{wp(2, 3, 4, true)}}}, []bool{true}, false); err != nil {
		t.Fatalf("a readable poll: %v", err)
	}
	// Internals off: Progress is not called (it would fail); the handles are.
	p, err = pollEStopWriters([]progressReader{fakeProgress{p: []dds.WriterProgress{wp(2, 3, 4, true)}}}, []bool{true}, true)
	if err != nil || fmt.Sprint(p) != fmt.Sprint([]dds.WriterProgress{wp(2, 0, 1, true)}) {
		t.Fatalf("internals off: %v %v", p, err)
	}

	// The unreadable writer 9, a one-shot: listed while it lives, gone within 5 s with nothing received.
	w := estopWatch{repair: time.Second, oneShot: 5 * time.Second}
	t0 := time.Unix(1000, 0)
	poll := func(ms int, rs ...progressReader) string {
		rel := make([]bool, len(rs))
		for i := range rel {
			rel[i] = true
		}
		p, _ := pollEStopWriters(rs, rel, false)
		return w.observe(t0.Add(time.Duration(ms)*time.Millisecond), p)
	}
	unreadable := fakeProgress{p: []dds.WriterProgress{wp(9, 0, 0, false)}}
	if r := poll(0, unreadable); r != "" {
		t.Fatalf("latched at once: %s", r)
	}
	poll(100)
	if r := poll(400); !strings.Contains(r, "came and went") {
		t.Fatalf("an unreadable one-shot writer that left did not latch: %q", r)
	}
}
