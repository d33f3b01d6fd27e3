package footprint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/ros2/dds"
	"github.com/rosorin/rosorin/sim"
)

// The benchmark's knobs, all optional:
//
//	ROSORIN_FOOTPRINT_BASE_BIN  a second rosorin-base (an older build; its rosorin-ros2 beside it): every
//	                            variant then runs build=base and build=tree back to back
//	ROSORIN_FOOTPRINT_ROUNDS    runs of each variant (1), the builds alternating (base, tree, base, tree, ...):
//	                            the load of a shared machine drifts, and -count runs one build's runs in a row
//	ROSORIN_FOOTPRINT_WINDOW    the measured window (20s)
//	ROSORIN_FOOTPRINT_WARMUP    driving before the window (5s)
//	ROSORIN_FOOTPRINT_ARGS      further flags of rosorin-base run, split at spaces (on a loaded, niced machine
//	                            "--driver-watchdog 2s": the threshold changes no work, heartbeats are sent
//	                            at 50 Hz whatever it is, but a starved run is not killed by it)
//	ROSORIN_FOOTPRINT_SOAK      TestFootprintSoak's length (unset: skipped), e.g. 30m
//	ROSORIN_FOOTPRINT_SOAK_EVERY its sampling period (1m)
const (
	envBase   = "ROSORIN_FOOTPRINT_BASE_BIN"
	envWindow = "ROSORIN_FOOTPRINT_WINDOW"
	envRounds = "ROSORIN_FOOTPRINT_ROUNDS"
	envWarmup = "ROSORIN_FOOTPRINT_WARMUP"
	envArgs   = "ROSORIN_FOOTPRINT_ARGS"
	envSoak   = "ROSORIN_FOOTPRINT_SOAK"
	envEvery  = "ROSORIN_FOOTPRINT_SOAK_EVERY"
)

// speed is the conditions: one command stream at 20 Hz, 0.05 m/s. The sign flips every flip so the
// robot shuttles in the floor world's room instead of meeting a wall (the rate of commands is the same).
const (
	speed = 0.05
	rate  = 50 * time.Millisecond
	flip  = 10 * time.Second
)

// envRoundsOf is ROSORIN_FOOTPRINT_ROUNDS (1 when unset).
func envRoundsOf(tb testing.TB) int {
	v := os.Getenv(envRounds)
	if v == "" {
		return 1
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("%s=%q: want a count such as 3", envRounds, v)
	}
	return n
}

func envDuration(tb testing.TB, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		tb.Fatalf("%s=%q: want a positive duration such as 20s", name, v)
	}
	return d
}

// build is one pair of binaries: rosorin-base and the ROS 2 bridge ("" when it could not be built).
type build struct {
	name, base, bridge, why string
}

var (
	treeOnce  sync.Once
	treeBuild build
	treeErr   error
)

// tree builds the source tree's rosorin-base and, with -tags ros2, rosorin-ros2.
func tree() (build, error) {
	treeOnce.Do(func() {
		b := build{name: "tree"}
		if b.base, treeErr = testkit.Binary("./cmd/rosorin-base"); treeErr != nil {
			return
		}
		root, err := testkit.ModuleRoot()
		if err != nil {
			treeErr = err
			return
		}
		out := filepath.Join(filepath.Dir(b.base), "footprint-rosorin-ros2")
		cmd := exec.Command("go", "build", "-tags", "ros2", "-o", out, "./cmd/rosorin-ros2")
		cmd.Dir = root
		if o, err := cmd.CombinedOutput(); err != nil {
			b.why = fmt.Sprintf("go build -tags ros2 ./cmd/rosorin-ros2: %v: %s", err, strings.TrimSpace(string(o)))
		} else {
			b.bridge = out
		}
		treeBuild = b
	})
	return treeBuild, treeErr
}

// builds is the tree's build, after the base build when ROSORIN_FOOTPRINT_BASE_BIN names one.
func builds(tb testing.TB) []build {
	t, err := tree()
	if err != nil {
		tb.Fatalf("build rosorin-base: %v", err)
	}
	p := os.Getenv(envBase)
	if p == "" {
		return []build{t}
	}
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("%s: %v", envBase, err)
	}
	b := build{name: "base", base: p, why: "no rosorin-ros2 beside " + p}
	if br := filepath.Join(filepath.Dir(p), "rosorin-ros2"); fileExists(br) {
		b.bridge, b.why = br, ""
	}
	return []build{b, t}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// stack is the service under measurement, enabled and driven.
type stack struct {
	*stacktest.Stack
	stop func() error
}

// start runs the sim's floor world and `rosorin-base run` on it (with --ros2 and --capture as asked), enables
// it and drives it through one command stream. Cleanup stops everything it started.
func start(tb testing.TB, bd build, ros2, capture bool, extra ...string) *stack {
	tb.Helper()
	args := append(strings.Fields(os.Getenv(envArgs)), extra...)
	env := os.Environ()
	if ros2 {
		if bd.bridge == "" {
			tb.Skipf("--ros2: no bridge for build %s: %s", bd.name, bd.why)
		}
		// A domain of its own: other ROS 2 participants on this host are not ours to measure or disturb; and
		// nothing leaves the machine: Cyclone on 127.0.0.1, multicast off (its default is the first
		// multicast-capable interface).
		env = append(env, "ROS_DOMAIN_ID="+strconv.Itoa(100+os.Getpid()%100), "CYCLONEDDS_URI="+dds.LoopbackConfig, "ROS_LOCALHOST_ONLY=")
		args = append(args, "--ros2", "--ros2-bridge", bd.bridge)
	}
	if capture {
		args = append(args, "--capture", filepath.Join(tb.TempDir(), "capture"))
	}
	st, err := stacktest.StartSim(sim.Config{World: "floor", Seed: 1},
		stacktest.Options{Bin: bd.base, Args: args, Env: env, Config: stacktest.RobotConfig, ReadyTimeout: 30 * time.Second})
	if err != nil {
		tb.Fatalf("start sim + rosorin-base run (%s): %v", bd.base, err)
	}
	s := &stack{Stack: st}
	tb.Cleanup(func() {
		if s.stop != nil {
			_ = s.stop()
		}
		st.Close()
		if tb.Failed() {
			tb.Logf("rosorin-base run log:\n%s", st.Log.String())
		}
	})
	ctx := context.Background()
	if r, err := st.Client.Enable(ctx, true); err != nil || !r.Success {
		tb.Fatalf("enable: %+v %v", r, err)
	}
	cs, err := st.Client.StreamCmdVel(ctx)
	if err != nil {
		tb.Fatalf("command stream: %v", err)
	}
	done, quit := make(chan error, 1), make(chan struct{})
	go func() {
		tick := time.NewTicker(rate)
		defer tick.Stop()
		t0 := time.Now()
		for {
			select {
			case <-quit:
				_ = cs.Send(api.Twist{})
				_, err := cs.Close()
				done <- err
				return
			case now := <-tick.C:
				v := speed
				if int(now.Sub(t0)/flip)%2 == 1 {
					v = -speed
				}
				if err := cs.Send(api.Twist{VX: v}); err != nil {
					done <- fmt.Errorf("command stream: %w", err)
					return
				}
			}
		}
	}()
	var once sync.Once
	s.stop = func() error {
		var err error
		once.Do(func() { close(quit); err = <-done })
		return err
	}
	return s
}

// driving fails unless the driver is enabled, unlatched and driven by the stream: a footprint of a stopped
// driver is not the one asked for.
func (s *stack) driving(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := s.Client.State(ctx)
	if err != nil {
		tb.Fatalf("state: %v", err)
	}
	if !st.Enabled || st.EStop != nil || st.Blocked != nil || st.Source != "cmd_vel" {
		tb.Fatalf("not driving: enabled %v, estop %v, blocked %v, source %q", st.Enabled, deref(st.EStop), deref(st.Blocked), st.Source)
	}
}

// unlatched fails when the e-stop is latched (a restarted driver starts latched); a moment's "cmd timeout"
// on a starved machine is logged, not failed.
func (s *stack) unlatched(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := s.Client.State(ctx)
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	if !st.Enabled || st.EStop != nil {
		t.Fatalf("not driving: enabled %v, estop %v", st.Enabled, deref(st.EStop))
	}
	if st.Blocked != nil {
		t.Logf("blocked for a moment: %s", *st.Blocked)
	}
}

func deref(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// role names a process of the service.
func role(root int) func(Proc) string {
	return func(p Proc) string {
		switch {
		case p.PID == root:
			return "supervisor"
		case p.Comm == driver.ChildProcName:
			return "driver"
		case p.Comm == api.ReaderComm:
			return "reader"
		case strings.HasPrefix(p.Comm, "rosorin-ros2"), strings.HasPrefix(p.Comm, "footprint-rosor"):
			return "bridge"
		}
		return p.Comm
	}
}

// measure samples the tree under the service for window, reading memory each second for its peak.
func measure(tb testing.TB, s *stack, window time.Duration) []Usage {
	tb.Helper()
	us, err := measureTree(s.Cmd.Process.Pid, role(s.Cmd.Process.Pid), window)
	if err != nil {
		tb.Fatalf("%v: %s", err, s.Log.String())
	}
	return us
}

// measureTree samples root and its descendants for window, reading memory each second for its peak.
func measureTree(root int, role func(Proc) string, window time.Duration) ([]Usage, error) {
	a, err := Tree(root)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	peak := map[int]Proc{}
	for time.Since(t0) < window {
		time.Sleep(min(time.Second, window-time.Since(t0)))
		now, err := Tree(root)
		if err != nil {
			return nil, err
		}
		for _, p := range now {
			q := peak[p.PID]
			q.RSSKB, q.AnonKB, q.PSSKB = max(q.RSSKB, p.RSSKB), max(q.AnonKB, p.AnonKB), max(q.PSSKB, p.PSSKB)
			peak[p.PID] = q
		}
	}
	b, err := Tree(root)
	if err != nil {
		return nil, err
	}
	return Between(a, b, time.Since(t0).Seconds(), peak, role)
}

// BenchmarkFootprint: the whole service against the sim's floor world at full rates, enabled and driving
// 0.05 m/s through one command stream at 20 Hz, defaults; CPU (% of one core), wake-ups (context switches per
// second), peak RSS and anonymous RSS (the Go heap's upper bound) per process and in total, over a 20 s
// window after 5 s of driving. It runs only with -bench:
//
//	go test -run '^$' -bench Footprint -benchtime 1x ./internal/footprint
func BenchmarkFootprint(b *testing.B) {
	if testkit.RaceEnabled {
		b.Skip("a measurement of CPU and memory: a -race build costs several times both")
	}
	window, warmup := envDuration(b, envWindow, 20*time.Second), envDuration(b, envWarmup, 5*time.Second)
	rounds := envRoundsOf(b)
	for _, ros2 := range []bool{false, true} {
		for _, capture := range []bool{false, true} {
			b.Run(fmt.Sprintf("ros2=%v/capture=%v", ros2, capture), func(b *testing.B) {
				for range rounds {
					for _, bd := range builds(b) {
						b.Run("build="+bd.name, func(b *testing.B) { benchService(b, bd, ros2, capture, warmup, window) })
					}
				}
			})
		}
	}
}

// benchService runs the service of build bd, drives it for warmup and reports its use over window.
func benchService(b *testing.B, bd build, ros2, capture bool, warmup, window time.Duration) {
	s := start(b, bd, ros2, capture)
	time.Sleep(warmup)
	s.driving(b)
	us := measure(b, s, window)
	s.driving(b)
	report(b, us)
	b.ReportMetric(0, "ns/op")
}

// report gives each process's figures and the totals as metrics, and a line a person reads.
func report(b *testing.B, us []Usage) {
	var tot Usage
	var lines []string
	for _, u := range us {
		b.ReportMetric(u.CPUPct, "cpu%/"+u.Role)
		b.ReportMetric(u.WakeupsPS, "wakeups/s/"+u.Role)
		b.ReportMetric(u.RSSMB, "rss-MB/"+u.Role)
		b.ReportMetric(u.AnonMB, "anon-MB/"+u.Role)
		b.ReportMetric(u.PSSMB, "pss-MB/"+u.Role)
		tot.CPUPct += u.CPUPct
		tot.WakeupsPS += u.WakeupsPS
		tot.RSSMB += u.RSSMB
		tot.AnonMB += u.AnonMB
		tot.PSSMB += u.PSSMB
		lines = append(lines, fmt.Sprintf("%s (pid %d) %.2f %% CPU, %.0f wake-ups/s, %.1f MB RSS (%.1f anon, PSS %.1f), %d fds",
			u.Role, u.PID, u.CPUPct, u.WakeupsPS, u.RSSMB, u.AnonMB, u.PSSMB, u.FDs))
	}
	b.ReportMetric(tot.CPUPct, "cpu%/total")
	b.ReportMetric(tot.WakeupsPS, "wakeups/s/total")
	b.ReportMetric(tot.RSSMB, "rss-MB/total")
	b.ReportMetric(tot.AnonMB, "anon-MB/total")
	b.ReportMetric(tot.PSSMB, "pss-MB/total")
	b.Logf("%s; total %.2f %% CPU, %.0f wake-ups/s, %.1f MB RSS, %.1f MB PSS", strings.Join(lines, "; "), tot.CPUPct, tot.WakeupsPS, tot.RSSMB, tot.PSSMB)
}

// TestFootprintSoak runs the service with recording on (--capture), enabled and driving as the benchmark does,
// for ROSORIN_FOOTPRINT_SOAK (skipped when unset), reading RSS and open descriptors of every process each
// ROSORIN_FOOTPRINT_SOAK_EVERY (1m). It fails when a process restarts, when the e-stop latches, or when a
// process grew beyond the tolerances (soakGrowth).
//
//	ROSORIN_FOOTPRINT_SOAK=30m go test -run FootprintSoak -v -timeout 40m ./internal/footprint
func TestFootprintSoak(t *testing.T) {
	d := envDuration(t, envSoak, 0)
	if d == 0 {
		t.Skip(envSoak + " unset: the soak runs only when asked (e.g. 30m)")
	}
	every := envDuration(t, envEvery, time.Minute)
	bds := builds(t)
	// The watchdog at 2 s: the soak judges memory and descriptors, and runs niced on a shared machine, where a
	// stall of a nice-19 process past the default 150 ms killed the driver twice in its first three minutes
	// (the supervisor logged its own wake-ups 100 ms late). A restart would hide a leak behind a fresh process.
	s := start(t, bds[len(bds)-1], false, true, "--driver-watchdog", "2s")
	root := s.Cmd.Process.Pid
	start, err := Tree(root)
	if err != nil {
		t.Fatal(err)
	}
	logSample(t, 0, start, root)
	// The samples start after the first period, not at the start: the heap and the buffers grow to their
	// working size in the first seconds of driving (the driver from 14 to 18 MB RSS).
	var samples [][]Proc
	for at := every; at <= d; at += every {
		time.Sleep(every)
		s.unlatched(t)
		now, err := Tree(root)
		if err != nil {
			t.Fatal(err)
		}
		logSample(t, at, now, root)
		if _, err := Between(start, now, 1, nil, role(root)); err != nil {
			t.Fatal(err)
		}
		samples = append(samples, now)
	}
	if len(samples) == 0 {
		t.Fatalf("%s=%v is shorter than one sampling period %v", envSoak, d, every)
	}
	if bad := soakGrowth(samples, role(root)); bad != "" {
		t.Error(bad)
	}
}

// The soak's tolerances: the median RSS of a process's last third of samples may exceed that of its first
// third by soakRSSGrowth, its descriptors by soakFDs. Medians, not the first and the last sample: a capture
// segment's rotation (every 10 min) lifts the recording processes' RSS by 5-8 MB for a minute or two (the
// finished segment's index is written while the next one fills), which is not a leak, and a sample may
// fall on it. A leak keeps growing and moves the median.
const (
	soakRSSGrowth = 4 << 10 // kB
	soakFDs       = 2
)

// soakGrowth says which processes grew beyond the tolerances over samples ("" when none).
func soakGrowth(samples [][]Proc, role func(Proc) string) string {
	third := max(1, len(samples)/3)
	head, tail := samples[:third], samples[len(samples)-third:]
	var bad []string
	for i, f := range samples[0] {
		for _, s := range samples {
			if i >= len(s) || s[i].PID != f.PID {
				return "the set of processes changed"
			}
		}
		rss := func(ss [][]Proc) uint64 { return median(ss, func(p Proc) uint64 { return p.RSSKB }, i) }
		fds := func(ss [][]Proc) uint64 { return median(ss, func(p Proc) uint64 { return uint64(p.FDs) }, i) }
		if a, b := rss(head), rss(tail); b > a+soakRSSGrowth {
			bad = append(bad, fmt.Sprintf("%s RSS median %d -> %d kB (tolerance +%d)", role(f), a, b, soakRSSGrowth))
		}
		if a, b := fds(head), fds(tail); b > a+soakFDs {
			bad = append(bad, fmt.Sprintf("%s fds median %d -> %d (tolerance +%d)", role(f), a, b, soakFDs))
		}
	}
	sort.Strings(bad)
	return strings.Join(bad, "; ")
}

// median is the median of v over the i-th process of each sample (the upper one of an even count).
func median(samples [][]Proc, v func(Proc) uint64, i int) uint64 {
	xs := make([]uint64, 0, len(samples))
	for _, s := range samples {
		xs = append(xs, v(s[i]))
	}
	sort.Slice(xs, func(a, b int) bool { return xs[a] < xs[b] })
	return xs[len(xs)/2]
}

func logSample(t *testing.T, at time.Duration, ps []Proc, root int) {
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%s rss %d kB anon %d kB pss %d kB fds %d", role(root)(p), p.RSSKB, p.AnonKB, p.PSSKB, p.FDs))
	}
	t.Logf("soak %v: %s", at, strings.Join(parts, "; "))
}
