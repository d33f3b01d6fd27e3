package ros2

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// fakeEStopDriver answers deliverEStop's requests from a script: answers[i] is the i-th e-stop request's
// answer (the last one repeats); latchedAfter > 0 makes the state record show the latch from that request on.
type fakeEStopDriver struct {
	answers      []func() (api.Reply, error)
	latchedAfter int
	estops       int
	states       int
}

func (f *fakeEStopDriver) EStop(ctx context.Context, reason string) (api.Reply, error) {
	f.estops++
	return f.answers[min(f.estops, len(f.answers))-1]()
}

func (f *fakeEStopDriver) State(ctx context.Context) (api.State, error) {
	f.states++
	var s api.State
	if f.latchedAfter > 0 && f.estops >= f.latchedAfter {
		r := "estop topic (ROS 2)"
		s.EStop = &r
	}
	return s, nil
}

var (
	ansOK      = func() (api.Reply, error) { return api.Reply{Success: true, Message: "e-stop latched"}, nil }
	ansRefused = func() (api.Reply, error) { return api.Reply{Success: false, Message: "board write failed"}, nil }
	ansStatus  = func() (api.Reply, error) {
		return api.Reply{}, &api.HTTPError{Status: 503, Message: "board write failed"}
	}
	ansGone    = func() (api.Reply, error) { return api.Reply{}, fmt.Errorf("%w at /x.sock", api.ErrNoDriver) }
	ansTimeout = func() (api.Reply, error) { return api.Reply{}, context.DeadlineExceeded }
)

// TestDeliverEStop: a failed e-stop is retried (20 ms doubling to 200 ms) until the driver confirms it
// (success, or its state record shows the latch) or is gone, each failure logged at ERROR; both ways the
// driver refuses (200 with success false, a non-2xx status) are failures.
func TestDeliverEStop(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var d []time.Duration
		for _, x := range v {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	cases := []struct {
		name         string
		answers      []func() (api.Reply, error)
		latchedAfter int
		cancelAfter  int // cancel the context at this sleep (0: never)
		want         EStopOutcome
		attempts     int
		sleeps       []time.Duration
		errors       int // ERROR lines
	}{
		{"confirmed", []func() (api.Reply, error){ansOK}, 0, 0, EStopConfirmed, 1, nil, 0},
		{"http-status-then-ok", []func() (api.Reply, error){ansStatus, ansStatus, ansStatus, ansOK}, 0, 0, EStopConfirmed, 4, ms(20, 40, 80), 3},
		{"success-false-then-ok", []func() (api.Reply, error){ansRefused, ansRefused, ansOK}, 0, 0, EStopConfirmed, 3, ms(20, 40), 2},
		{"timeouts-capped", []func() (api.Reply, error){ansTimeout, ansTimeout, ansTimeout, ansTimeout, ansTimeout, ansTimeout, ansTimeout, ansOK}, 0, 0, EStopConfirmed, 8, ms(20, 40, 80, 160, 200, 200, 200), 7},
		{"refused-but-latched", []func() (api.Reply, error){ansRefused}, 1, 0, EStopLatchedByState, 1, nil, 0},
		{"status-latched-later", []func() (api.Reply, error){ansStatus}, 3, 0, EStopLatchedByState, 3, ms(20, 40), 2},
		{"driver-gone", []func() (api.Reply, error){ansGone}, 0, 0, EStopDriverGone, 1, nil, 1},
		{"failing-then-gone", []func() (api.Reply, error){ansStatus, ansStatus, ansGone}, 0, 0, EStopDriverGone, 3, ms(20, 40), 3},
		{"bridge-stops", []func() (api.Reply, error){ansStatus}, 0, 3, EStopCancelled, 3, ms(20, 40, 80), 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, nil))
			f := &fakeEStopDriver{answers: tc.answers, latchedAfter: tc.latchedAfter}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var sleeps []time.Duration
			sleep := func(ctx context.Context, d time.Duration) bool {
				sleeps = append(sleeps, d)
				if len(sleeps) == tc.cancelAfter {
					cancel()
					return false
				}
				return true
			}
			failed, first := 0, 0
			got, n := deliverEStop(ctx, f, "test", log, sleep, func() { failed++ }, func() { first++ })
			if got != tc.want || n != tc.attempts || f.estops != n {
				t.Errorf("outcome %v after %d attempts (%d requests); want %v after %d", got, n, f.estops, tc.want, tc.attempts)
			}
			if fmt.Sprint(sleeps) != fmt.Sprint(tc.sleeps) {
				t.Errorf("waits %v, want %v", sleeps, tc.sleeps)
			}
			if e := strings.Count(buf.String(), "level=ERROR"); e != tc.errors {
				t.Errorf("%d ERROR lines, want %d:\n%s", e, tc.errors, buf.String())
			}
			wantFirst := 0
			if len(tc.sleeps) > 0 {
				wantFirst = 1
			}
			if first != wantFirst {
				t.Errorf("firstFailure ran %d times, want %d", first, wantFirst)
			}
			if tc.want == EStopConfirmed && tc.attempts == 1 && failed != 0 {
				t.Errorf("a confirmed e-stop counted %d failures", failed)
			}
		})
	}
}

// TestDeliverEStopRealSocket: the same through api.Client on a real unix socket: a driver that answers a
// failed e-stop with 500 twice, then 200 with success false, then success; and a path where nothing listens
// (gone at once).
func TestDeliverEStopRealSocket(t *testing.T) {
	dir := t.TempDir()
	quiet := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	c := api.NewClient(dir + "/none.sock")
	if got, n := deliverEStop(context.Background(), c, "x", quiet, sleepCtx, func() {}, nil); got != EStopDriverGone || n != 1 {
		t.Fatalf("no socket: %v after %d", got, n)
	}
	ln, err := net.Listen("unix", dir+"/base.sock")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var estops []time.Time
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/estop", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		estops = append(estops, time.Now())
		n := len(estops)
		mu.Unlock()
		switch {
		case n <= 2:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"success":false,"message":"board write failed"}`)
		case n == 3:
			fmt.Fprint(w, `{"success":false,"message":"board write failed"}`)
		default:
			fmt.Fprint(w, `{"success":true,"message":"e-stop latched"}`)
		}
	})
	mux.HandleFunc("GET /v1/state", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{"estop":null}`) })
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	var buf bytes.Buffer
	c = api.NewClient(dir + "/base.sock")
	defer c.CloseIdle()
	got, n := deliverEStop(context.Background(), c, "x", slog.New(slog.NewTextHandler(&buf, nil)), sleepCtx, func() {}, nil)
	if got != EStopConfirmed || n != 4 {
		t.Fatalf("%v after %d attempts:\n%s", got, n, buf.String())
	}
	if e := strings.Count(buf.String(), "level=ERROR"); e != 3 {
		t.Errorf("%d ERROR lines, want 3:\n%s", e, buf.String())
	}
	for i, want := range []time.Duration{20, 40, 80} {
		if gap := estops[i+1].Sub(estops[i]); gap < want*time.Millisecond {
			t.Errorf("retry %d came %v after the failure, want >= %v ms", i+1, gap, want)
		}
	}
}
