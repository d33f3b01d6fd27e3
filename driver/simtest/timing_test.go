// Stop timings from the sim's record of frame arrivals: the e-stop request, the deadman, SIGINT of the
// service. Figures are logged (go test -v); the bounds are generous safety nets for a loaded 2-core machine.

package simtest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/internal/procfs"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

// TestTimingEStopRequestToStopFrame: 20 cycles of drive, e-stop request, reset. The driver writes the stop
// frame at the trip, not at the next tick.
func TestTimingEStopRequestToStopFrame(t *testing.T) {
	s := sharedStack(t)
	p := s.publish(t, api.Twist{VX: 0.2})
	const cycles = 20
	var lat []time.Duration
	for i := range cycles {
		s.reset(t)
		s.mustEnable(t)
		// The wheels are commanded to turn: a non-zero frame arrived and the sim applied it.
		if _, ok := s.waitTruth(2*time.Second, func(tr sim.Truth) bool { return tr.TargetRPS[0] > 0 }); !ok {
			t.Fatalf("cycle %d: wheels never commanded; state blocked %s", i, strp(s.state(t).Blocked))
		}
		seq := s.sim.RxSeq()
		t0 := time.Now()
		if rep := s.estop(t, fmt.Sprintf("timing cycle %d", i)); !rep.Success {
			t.Fatalf("cycle %d: estop %+v", i, rep)
		}
		r, _, ok := s.waitRx(seq, time.Second, stopAfter(t0))
		if !ok {
			t.Fatalf("cycle %d: no stop frame within 1 s of the e-stop request", i)
		}
		lat = append(lat, r.T.Sub(t0))
	}
	p.Halt()
	testkit.Figure(t, "e-stop request -> stop frame at the board, %s", testkit.Figures(lat))
	if p99, bound := testkit.Quantile(lat, 0.99), testkit.Bound(100*time.Millisecond); p99 > bound {
		t.Errorf("e-stop p99 %s, bound %s", testkit.Ms(p99), testkit.Ms(bound))
	}
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.WheelsStopped)); !ok {
		t.Errorf("wheels after the last e-stop: %v", tr.WheelRPS)
	}
}

// TestTimingDeadman: forward, then silence (the stream stays open): the stop frame comes cmd_timeout (0.3 s)
// after the last command, by the driver's deadline timer, not at the next 20 ms tick. A random phase between
// the commands and the control ticks makes the runs cover the whole tick. 200 runs in the full suite (the
// issue-18 measurement, figures in docs/safety-case.md), 12 under -short.
//
// Measured: (stop frame at the board) - (the start of the last command's send), an upper bound of the
// driver's (stop frame) - (arrival), since no command arrives before its send begins; and the driver's own
// lateness, from the hand-over to "none" on the source topic (the deadline's handling - the arrival).
func TestTimingDeadman(t *testing.T) {
	if !testing.Short() {
		testkit.NeedsQuietMachine(t) // 200 runs, each within 5 ms of the tick
	}
	s := sharedStack(t)
	s.mustEnable(t)
	changes := s.followSource(t)
	p := s.publish(t, api.Twist{})
	p.Silence()
	runs := testkit.Reps(200, 12)
	cmdTimeout := 300 * time.Millisecond
	tick := testkit.Bound(20 * time.Millisecond) // the control tick, the deadline's backstop
	slack := testkit.Bound(5 * time.Millisecond) // the backstop tick's own lateness and the frame's way to the board
	var beyondTick []string
	var fromSend, driverLate, toBoard, fromArrival []time.Duration
	for i := range runs {
		time.Sleep(time.Duration(rand.IntN(20000)) * time.Microsecond) // the random phase (a stimulus)
		seq := s.sim.RxSeq()
		p.Set(api.Twist{VX: 0.1})
		if _, _, ok := s.waitRx(seq, 2*time.Second, isMoving); !ok {
			t.Fatalf("run %d: wheels never commanded; blocked %s", i, strp(s.state(t).Blocked))
		}
		p.Silence()
		start := p.LastStart()
		r, _, ok := s.waitRx(seq, 2*time.Second, stopAfter(start))
		if !ok {
			t.Fatalf("run %d: no stop frame within 2 s of the last command", i)
		}
		d := r.T.Sub(start)
		fromSend = append(fromSend, d)
		switch {
		case d <= cmdTimeout:
			t.Errorf("run %d: stop frame %s after the last command's send began: before cmd_timeout", i, testkit.Ms(d))
		case d >= cmdTimeout+tick+slack:
			t.Errorf("run %d: stop frame %s after the last command's send began, want before 0.3 s plus one control "+
				"tick plus %s (the tick is the deadline timer's backstop)", i, testkit.Ms(d), testkit.Ms(slack))
		case d >= cmdTimeout+tick:
			beyondTick = append(beyondTick, fmt.Sprintf("run %d: %s", i, testkit.Ms(d)))
		}
		if c, ok := changes.wait("none", start, time.Second); !ok {
			t.Errorf("run %d: no hand-over to none on the source topic", i)
		} else if c.PreviousCmdAgeS != nil {
			driverLate = append(driverLate, time.Duration(*c.PreviousCmdAgeS*float64(time.Second))-cmdTimeout)
			// The driver's stamp is its start's wall time plus its monotonic time since: comparable with this
			// process's wall clock to the NTP slew over the test (ppm), so logged, not judged.
			toBoard = append(toBoard, r.T.Round(0).Sub(c.Stamp))
			fromArrival = append(fromArrival, cmdTimeout+driverLate[len(driverLate)-1]+toBoard[len(toBoard)-1])
		}
	}
	p.Halt()
	testkit.Figure(t, "deadman: last command's send -> stop frame at the board, %s", testkit.Figures(fromSend))
	testkit.Figure(t, "deadman: the driver's deadline after cmd_timeout (its timer's lateness), %s", testkit.Figures(driverLate))
	t.Logf("deadman: the driver's stop decision -> stop frame at the board (two processes' wall clocks), %s", testkit.Figures(toBoard))
	t.Logf("deadman: the last command's arrival -> stop frame at the board (the two above per run), %s", testkit.Figures(fromArrival))
	// The issue-18 requirement (p99 within cmd_timeout + 1 ms) is a measurement, reported in
	// docs/safety-case.md from these figures; a CI run on the shared machine once had a 7 ms hiccup in 3 of
	// 200 runs. Asserted: the generous safety bound above (every run before the old tick grid's
	// latest plus 5 ms: the tick is the timer's backstop), and
	// that the precise timer is the one in use: the driver's median lateness under 0.5 ms (a plain Go timer
	// gave 0.72-0.78 ms, the tick grid about 10 ms). Runs decided by the backstop tick are logged, not judged:
	// CI runs have had 0, 1 and 9 of 200 of them (lateness 19-21 ms), runs here alone none; one cause, a due
	// deadline re-armed past by another event, is fixed (docs/safety-case.md).
	testkit.Figure(t, "deadman: %d of %d runs stopped by the tick after cmd_timeout, not by the deadline's timer (%s)",
		len(beyondTick), runs, strings.Join(beyondTick, "; "))
	if med := testkit.Quantile(driverLate, 0.5); med > testkit.Bound(500*time.Microsecond) || len(driverLate) < runs*9/10 {
		t.Errorf("deadman: the driver's median lateness %s after cmd_timeout (%d runs), want under 0.5 ms", testkit.Ms(med), len(driverLate))
	}
}

// TestTimingSIGINT: SIGINT to `rosorin-base run` while the wheels turn, three times on fresh stacks: stop
// frames reach the board, the supervisor exits 0, and none of its processes is left.
func TestTimingSIGINT(t *testing.T) {
	const runs = 3
	var first, exit []time.Duration
	for i := range runs {
		f, e := sigintOnce(t, i)
		if t.Failed() {
			return
		}
		first, exit = append(first, f), append(exit, e)
	}
	t.Logf("SIGINT of the supervisor -> first stop frame at the board, %s", testkit.Figures(first))
	t.Logf("SIGINT of the supervisor -> exit 0, %s", testkit.Figures(exit))
}

func sigintOnce(t *testing.T, run int) (firstStop, exited time.Duration) {
	t.Helper()
	s, err := startStack()
	if err != nil {
		t.Fatalf("run %d: start: %v", run, err)
	}
	defer s.close()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	if r, err := s.cl.Enable(ctx, true); err != nil || !r.Success {
		t.Fatalf("run %d: enable: %+v %v", run, r, err)
	}
	p := s.publish(t, api.Twist{VX: 0.2})
	defer p.Halt()
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.Turning)); !ok {
		t.Fatalf("run %d: wheels not turning: %v", run, tr.WheelRPS)
	}
	st, err := s.cl.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sup := s.Cmd.Process.Pid
	kids := childrenOf(sup)
	for _, pid := range []int{st.PIDs.Driver, st.PIDs.LidarReader} {
		if _, ok := kids[pid]; !ok {
			t.Fatalf("run %d: pid %d (from the state record) is not a child of the supervisor %d: children %v", run, pid, sup, kids)
		}
	}
	all := map[int]procfs.Stat{}
	for pid, pi := range kids { // and their children, if any
		all[pid] = pi
		for g, gi := range childrenOf(pid) {
			all[g] = gi
		}
	}
	seq := s.sim.RxSeq()
	t0 := time.Now()
	code, ok := s.Interrupt(testkit.Bound(5 * time.Second)) // SIGINT, then wait for the exit
	tExit := time.Now()
	if !ok {
		t.Fatalf("run %d: rosorin-base run still running 5 s after SIGINT", run)
	}
	if code != 0 {
		t.Errorf("run %d: exit status %d after SIGINT, want 0; log:\n%s", run, code, tail(s.log.String(), 40))
	}
	r, _, ok := s.waitRx(seq, time.Second, stopAfter(t0))
	if !ok {
		t.Fatalf("run %d: no stop frame after SIGINT", run)
	}
	frames, _ := s.sim.ReceivedSince(r.Seq)
	var stops []string
	for _, f := range frames {
		if !isStop(f) {
			t.Errorf("run %d: frame % x after the first stop frame of the shutdown", run, frameBytes(f))
		}
		stops = append(stops, testkit.Ms(f.T.Sub(t0)))
	}
	if len(frames) < 2 {
		t.Errorf("run %d: %d stop frames after SIGINT, want at least the supervisor's two", run, len(frames))
	}
	if tr, ok := s.waitTruth(time.Second, func(tr sim.Truth) bool { return tr.TargetRPS == [4]float64{} }); !ok {
		t.Errorf("run %d: wheel targets %v after the shutdown", run, tr.TargetRPS)
	}
	// No process left: every child (and grandchild) the supervisor had is gone, and nothing runs with this
	// stack's directory on its command line.
	for pid, pi := range all {
		if stillRunning(pi) {
			t.Errorf("run %d: process %d (child of the supervisor) still running after its exit", run, pid)
		}
	}
	if left := procsMentioning(s.Dir); len(left) > 0 {
		t.Errorf("run %d: processes left: %v", run, left)
	}
	p.Halt()
	t.Logf("run %d: SIGINT -> stop frames at %s; exit 0 after %s; %d processes (driver %d, reader %d) gone",
		run, strings.Join(stops, ", "), testkit.Ms(tExit.Sub(t0)), len(all), st.PIDs.Driver, st.PIDs.LidarReader)
	return r.T.Sub(t0), tExit.Sub(t0)
}

// procsMentioning lists live processes whose command line contains s.
func procsMentioning(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if st, err := procfs.ReadStat(pid); err == nil && st.Alive() {
			out = append(out, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(b), "\x00", " ")))
		}
	}
	return out
}

// TestTimingStateStampIsWallClock: the state's stamp is the wall clock of the moment the loop built it, which
// lies between the request and the reply. Message stamps are the start's wall time plus monotonic time since
// start; a gap between those two readings at start shifts every stamp (it once put the driver's view of a
// command's arrival 1.7-2 ms late under -race and failed the deadman's "not before 0.3 s" check).
func TestTimingStateStampIsWallClock(t *testing.T) {
	s := sharedStack(t)
	const slack = 200 * time.Microsecond // JSON keeps nanoseconds; this covers the host's clock granularity
	for i := range 20 {
		t0 := time.Now()
		st := s.state(t)
		t1 := time.Now()
		if st.Stamp.Before(t0.Add(-slack)) || st.Stamp.After(t1.Add(slack)) {
			t.Fatalf("state %d: stamp %s outside its request %s .. reply %s (driver clock off by %s .. %s)", i,
				st.Stamp.Format("15:04:05.000000"), t0.Format("15:04:05.000000"), t1.Format("15:04:05.000000"),
				testkit.Ms(st.Stamp.Sub(t1)), testkit.Ms(st.Stamp.Sub(t0)))
		}
	}
}
