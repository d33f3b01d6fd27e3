package evidence

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
)

func TestLines(t *testing.T) {
	var b bytes.Buffer
	e := New(&b, clock.Real{})
	e.Logf("state: %s", `{"a":1}`)
	e.Flush()
	if !strings.Contains(b.String(), `state: {"a":1}`) || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("%q", b.String())
	}
	var nilEv *Log
	nilEv.Logf("no panic") // a nil log discards
	if got := Name("stop_proof_stand", time.Date(2026, 10, 2, 17, 16, 17, 0, time.UTC)); got != "stop_proof_stand_20261002_171617.log" {
		t.Error(got)
	}
}

// ticks is a clock that moves 1 ms per reading and yields after each, so a reading and the lock it precedes
// are far apart in scheduling terms.
type ticks struct{ n atomic.Int64 }

func (c *ticks) Now() time.Time {
	n := c.n.Add(1)
	runtime.Gosched()
	return time.Unix(0, n*int64(time.Millisecond))
}

func (c *ticks) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

// Lines logged from many goroutines are in time order in the file, whoever logs them: each line is timed under
// the log's lock. (The tap runs outside it; the proof recording keeps its channel in order itself.)
func TestLinesInTimeOrderAcrossGoroutines(t *testing.T) {
	var b bytes.Buffer
	e := New(&b, &ticks{})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				e.Logf("line %d", i)
			}
		}()
	}
	wg.Wait()
	e.Flush()
	prev := -1.0
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		f := strings.Fields(l)
		s, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if s < prev {
			t.Fatalf("line at %.3f s after one at %.3f s", s, prev)
		}
		prev = s
	}
}
