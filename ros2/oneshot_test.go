//go:build ros2 && linux && cgo

package ros2_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2/dds"
)

// cycloneOneShot runs `oneshot estop QOS KEEPALIVE VALUE` and returns the wall time it wrote at.
func cycloneOneShot(bin, qos string, keepAlive time.Duration, value bool) (time.Time, error) {
	v := "0"
	if value {
		v = "1"
	}
	out, err := exec.Command(bin, "estop", qos, strconv.Itoa(int(keepAlive.Milliseconds())), v).Output()
	return parseWrote(string(out), err)
}

// parseWrote finds "wrote SEC NSEC" in a one-shot publisher's output.
func parseWrote(out string, err error) (time.Time, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var sec, nsec int64
		if _, e := fmt.Sscanf(sc.Text(), "wrote %d %d", &sec, &nsec); e == nil {
			return time.Unix(sec, nsec), nil
		}
	}
	if err == nil {
		err = fmt.Errorf("no 'wrote' line")
	}
	return time.Time{}, fmt.Errorf("one-shot publisher: %v: %q", err, out)
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// standLog switches the contact reflex to log for the test: on the stand the wheels turn in the air and
// the LiDAR sees no motion, which the reflex (act) would latch as a contact within about 1.5 s of driving.
func standLog(t *testing.T, r *rig) {
	t.Helper()
	if _, err := r.st.Client().ContactMode(context.Background(), api.ContactRequest{Mode: "log", ForS: 600}); err != nil {
		t.Fatal(err)
	}
}

// undeliveredLatch is what the bridge's estopWatch says when it latches for an announced sample that did
// not arrive: never in a run where every e-stop publisher stays alive until it has repaired what it announced.
// (The came-and-went reason says "in case it was", and is expected with Fast DDS one-shots.)
const undeliveredLatch = "latched in case one was an e-stop"

// oneShotRun is one series of one-shot e-stops while the C peer drives: every one must latch, with the
// topic's reason; the times are from the write (the publisher's clock, just before its write) to the stop
// frame at the simulated board.
//
// minBySample is how many must have latched by the sample itself (not by a fail-safe): all for Cyclone
// publishers (they linger until their sample is acknowledged), half for Fast DDS ones (about one in ten
// outruns discovery and is not repaired before the publisher exits): a broken reader path fails either way.
func oneShotRun(t *testing.T, r *rig, n, minBySample int, publish func() (time.Time, error)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	standLog(t, r)
	go func() { // commands keep arriving: the e-stop is the only thing that stops the wheels
		for ctx.Err() == nil {
			fmt.Fprintln(r.peer.in, "twist 0.1 0 0")
			time.Sleep(30 * time.Millisecond)
		}
	}()
	c := r.st.Client()
	sm := r.st.Sim()
	var lat []time.Duration
	latched := 0
	how := map[string]int{}
	for i := 0; i < n; i++ {
		c.Reset(ctx)
		c.Enable(ctx, true)
		r.eventually(3*time.Second, "moving before the one-shot e-stop", moving)
		seq := sm.RxSeq()
		wrote, err := publish()
		if err != nil {
			t.Fatalf("one-shot %d: %v", i, err)
		}
		wctx, wcancel := context.WithTimeout(ctx, testkit.Bound(3*time.Second))
		f, _, err := sm.WaitFrameSince(wctx, seq, stopFrame)
		wcancel()
		if err != nil {
			t.Errorf("one-shot e-stop %d: no stop frame within 3 s (%d of %d latched so far)", i, latched, i)
			continue
		}
		s := r.state()
		if s.EStop == nil || !strings.Contains(*s.EStop, "estop topic (ROS 2)") {
			t.Errorf("one-shot e-stop %d: stop frame but e-stop %v (the deadman?)", i, s.EStop)
			continue
		}
		latched++
		lat = append(lat, f.T.Sub(wrote))
		how[latchKind(*s.EStop)]++
	}
	testkit.Figure(t, "%d of %d one-shot e-stops latched (%v); write -> stop frame: %s", latched, n, how, testkit.Figures(lat))
	if latched != n {
		t.Errorf("%d of %d one-shot e-stops latched, want all", latched, n)
	}
	if how["sample"] < minBySample {
		t.Errorf("%d of %d one-shot e-stops latched by their sample, want at least %d (the rest by a fail-safe)", how["sample"], n, minBySample)
	}
}

// TestOneShotEStop: an e-stop written once by a fresh process that waits for a match, writes and exits
// soon after (ros2 topic pub --once in Humble: transient-local; an rclpy/rclcpp node's default profile:
// volatile) latches every time (ROSORIN_ROS2_ONESHOTS per kind, default 30), from the Cyclone one-shot
// and, when it is built, from the Fast DDS one. A false never clears a latch, never latches, and a
// service call from a fresh process is answered every time.
func TestOneShotEStop(t *testing.T) {
	r := startRig(t)
	bin := buildOneShot(t)
	r.peer.wait(t, 0, "ready", 10*time.Second, nil)
	n := envInt("ROSORIN_ROS2_ONESHOTS", 30)
	keep := 100 * time.Millisecond
	for _, qos := range []string{"tl", "volatile"} {
		t.Run("cyclone-"+qos, func(t *testing.T) {
			oneShotRun(t, r, n, n, func() (time.Time, error) { return cycloneOneShot(bin, qos, keep, true) })
		})
	}
	fbin := fastPeerForOneShots(t)
	if fbin != "" {
		for _, qos := range []string{"tl", "volatile"} {
			t.Run("fastdds-"+qos, func(t *testing.T) {
				oneShotRun(t, r, n, n/2, func() (time.Time, error) { return fastOneShot(t, fbin, qos, keep, true) })
			})
		}
	}

	ctx := context.Background()
	c := r.st.Client()
	t.Run("false-never-clears", func(t *testing.T) {
		c.Reset(ctx)
		c.EStop(ctx, "latched by the test")
		for _, qos := range []string{"tl", "volatile", "be"} {
			if _, err := cycloneOneShot(bin, qos, keep, false); err != nil {
				t.Fatal(err)
			}
		}
		// Past the watch's grace: a lost best-effort false latches in doubt, but not after the next reset.
		time.Sleep(testkit.Bound(time.Second))
		if s := r.state(); s.EStop == nil || !strings.Contains(*s.EStop, "latched by the test") {
			t.Errorf("after estop false x3: e-stop %v, want the test's latch still there", s.EStop)
		}
	})
	t.Run("false-never-latches", func(t *testing.T) {
		c.Reset(ctx)
		c.Enable(ctx, true)
		for i := 0; i < 10; i++ {
			if _, err := cycloneOneShot(bin, []string{"tl", "volatile"}[i%2], keep, false); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(testkit.Bound(1500 * time.Millisecond)) // longer than the bridge's repair time
		if s := r.state(); s.EStop != nil {
			t.Errorf("one-shot estop false latched: %s", *s.EStop)
		}
	})
	if fbin != "" {
		// A Fast DDS one-shot whose sample outran discovery is not repaired before it exits: the bridge
		// latches in doubt (came and went). A false may therefore latch, but only that way, never as an
		// e-stop sample.
		t.Run("fastdds-false", func(t *testing.T) {
			doubt := 0
			for i := 0; i < 10; i++ {
				c.Reset(ctx)
				c.Enable(ctx, true)
				if _, err := fastOneShot(t, fbin, []string{"tl", "volatile"}[i%2], keep, false); err != nil {
					t.Fatal(err)
				}
				time.Sleep(testkit.Bound(400 * time.Millisecond)) // the came-and-went check: 100 ms keep-alive + 100 ms grace + polls
				if s := r.state(); s.EStop != nil {
					if latchKind(*s.EStop) == "publisher came and went without a sample" {
						doubt++
						continue
					}
					t.Errorf("one-shot estop false from Fast DDS latched: %s", *s.EStop)
				}
			}
			t.Logf("10 one-shot estop false from Fast DDS: %d latched in doubt (sample lost before discovery), 0 otherwise", doubt)
		})
	}
	t.Run("service-calls", func(t *testing.T) {
		calls := envInt("ROSORIN_ROS2_CALLS", 30)
		ok := 0
		for i := 0; i < calls; i++ {
			args := []string{"call", "reset"}
			if i%2 == 1 {
				args = []string{"call", "enable", "1"}
			}
			out, err := exec.Command(bin, args...).Output()
			if err != nil || !strings.HasPrefix(string(out), "reply ") {
				t.Errorf("call %d (%s): %v %q", i, strings.Join(args[1:], " "), err, out)
				continue
			}
			ok++
		}
		t.Logf("%d of %d service calls from a fresh process answered", ok, calls)
	})
	if strings.Contains(r.logText(), undeliveredLatch) {
		t.Errorf("the bridge latched for an undelivered e-stop sample in a run where none was lost:\n%s", grepLines(r.logText(), undeliveredLatch))
	}
}

// latchKind says how the bridge latched, from the reason: the sample itself, or one of estopWatch's
// fail-safes.
func latchKind(reason string) string {
	switch {
	case strings.Contains(reason, "came and went"):
		return "publisher came and went without a sample"
	case strings.Contains(reason, "announced"):
		return "announced sample not delivered"
	case strings.Contains(reason, "estop topic (ROS 2)"):
		return "sample"
	}
	return "other: " + reason
}

func grepLines(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestEStopHistoryAfterBridgeRestart: a transient-local publisher that still holds `true` in its history
// when the bridge restarts latches the e-stop again (its last word is an e-stop; fail-safe), and the
// reason says the sample came from a publisher's history. A publisher whose last word is `false` does not.
func TestEStopHistoryAfterBridgeRestart(t *testing.T) {
	r := startRig(t)
	ctx := context.Background()
	c := r.st.Client()
	w, err := r.p.NewWriter("rt/estop", "std_msgs::msg::dds_::Bool_", dds.Latched, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := testkit.Eventually(testkit.Bound(10*time.Second), func() error {
		if n, _ := w.Matched(); n < 3 { // the bridge's three e-stop readers
			return fmt.Errorf("matched %d", n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	restart := func() {
		t.Helper()
		sup := r.state().PIDs.Supervisor
		old := childWithArg(t, sup, "ros2")
		if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := testkit.Eventually(testkit.Bound(10*time.Second), func() error {
			if n, _ := w.Matched(); n < 3 || childWithArg(t, sup, "ros2") == old {
				return fmt.Errorf("new bridge not matched yet (%d)", n)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	w.Write(cdr.Marshal(&rosmsg.Bool{Data: true}))
	r.eventually(3*time.Second, "the latched publisher's e-stop", func(s api.State) bool { return s.EStop != nil })
	time.Sleep(1200 * time.Millisecond) // older than a second when the next bridge gets it
	c.Reset(ctx)
	restart()
	s := r.eventually(5*time.Second, "latched again by the history of a publisher holding true", func(s api.State) bool { return s.EStop != nil })
	if !strings.Contains(*s.EStop, "a publisher's history") {
		t.Errorf("reason %q does not say the e-stop came from a publisher's history", *s.EStop)
	}
	w.Write(cdr.Marshal(&rosmsg.Bool{Data: false}))
	time.Sleep(200 * time.Millisecond)
	c.Reset(ctx)
	restart()
	time.Sleep(testkit.Bound(3 * time.Second))
	if s := r.state(); s.EStop != nil {
		t.Errorf("a publisher whose last word is false latched after a bridge restart: %s", *s.EStop)
	}
	// Positive control: the new bridge hears this writer (the wait above was not spent before it matched).
	w.Write(cdr.Marshal(&rosmsg.Bool{Data: true}))
	r.eventually(2*time.Second, "the same publisher's true through the new bridge", func(s api.State) bool { return s.EStop != nil })
}

// TestEStopSoak: publishers of estop false (one-shot, both QoS), cmd_vel and scan come and go for
// ROSORIN_ROS2_SOAK (default 20 s; the soak is 10m) while the robot is enabled: no e-stop latches.
func TestEStopSoak(t *testing.T) {
	d := 20 * time.Second
	if v, err := time.ParseDuration(os.Getenv("ROSORIN_ROS2_SOAK")); err == nil && v > 0 {
		d = v
	}
	r := startRig(t)
	bin := buildOneShot(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := r.st.Client()
	standLog(t, r)
	c.Reset(ctx)
	c.Enable(ctx, true)
	var falses, cmdPubs, scanPubs atomic.Int64
	done := make(chan struct{}, 3)
	go func() { // one-shot estop false, both kinds
		defer func() { done <- struct{}{} }()
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := cycloneOneShot(bin, []string{"tl", "volatile"}[i%2], time.Duration(i%5)*50*time.Millisecond, false); err == nil {
				falses.Add(1)
			}
		}
	}()
	go func() { // a cmd_vel publisher at a time, zero twists for a while, gone
		defer func() { done <- struct{}{} }()
		for ctx.Err() == nil {
			w, err := r.p.NewWriter("rt/cmd_vel", "geometry_msgs::msg::dds_::Twist_", dds.Default, "")
			if err != nil {
				t.Error(err)
				return
			}
			for i := 0; i < 20 && ctx.Err() == nil; i++ {
				w.Write(cdr.Marshal(&rosmsg.Twist{}))
				time.Sleep(25 * time.Millisecond)
			}
			w.Close()
			cmdPubs.Add(1)
			time.Sleep(300 * time.Millisecond)
		}
	}()
	go func() { // another node's scan publisher
		defer func() { done <- struct{}{} }()
		for ctx.Err() == nil {
			w, err := r.p.NewWriter("rt/scan", "sensor_msgs::msg::dds_::LaserScan_", dds.SensorData, "")
			if err != nil {
				t.Error(err)
				return
			}
			time.Sleep(700 * time.Millisecond)
			w.Close()
			scanPubs.Add(1)
		}
	}()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if s := r.state(); s.EStop != nil {
			t.Fatalf("e-stop latched during the soak: %s", *s.EStop)
		}
		time.Sleep(200 * time.Millisecond)
	}
	cancel()
	for i := 0; i < 3; i++ {
		<-done
	}
	time.Sleep(testkit.Bound(1500 * time.Millisecond))
	if s := r.state(); s.EStop != nil {
		t.Fatalf("e-stop latched after the soak: %s", *s.EStop)
	}
	t.Logf("soak %v: %d one-shot estop false, %d cmd_vel and %d scan publishers came and went; 0 latches", d, falses.Load(), cmdPubs.Load(), scanPubs.Load())
	if falses.Load() == 0 || cmdPubs.Load() == 0 {
		t.Errorf("the soak published nothing")
	}
}

// fastPeerForOneShots builds the Fast DDS peer for the one-shot series, or returns "" (logged) when
// fastddsgen is missing and ROSORIN_REQUIRE_FASTDDS is not 1 (then buildFastPeer fails the test).
func fastPeerForOneShots(t *testing.T) string {
	if _, err := exec.LookPath("fastddsgen"); err != nil && os.Getenv("ROSORIN_REQUIRE_FASTDDS") != "1" {
		t.Logf("no Fast DDS one-shots: fastddsgen not found (%s)", fastDDSHint)
		return ""
	}
	return buildFastPeer(t)
}
