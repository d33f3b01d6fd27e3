//go:build ros2 && linux && cgo

package ros2_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

// sender is a publisher of planar twists (ros2.CmdVel, ros2.CmdVelStamped).
type sender interface {
	Send(vx, vy, wz float64) error
}

// publish sends (vx, vy, wz) from s at 20 Hz (a teleop's, Nav2's rate) until the returned stop is called;
// stop returns when the last message is written.
func publish(s sender, vx, vy, wz float64) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			s.Send(vx, vy, wz)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// sourceLog records the samples of the bridge's ~/source, in order, from a subscriber started by watchSource.
type sourceLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *sourceLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// watchSource subscribes p to ~/source (transient-local, as the publisher) until ctx ends.
func watchSource(ctx context.Context, t *testing.T, p *ros2.Peer) *sourceLog {
	l := &sourceLog{}
	go p.Subscribe(ctx, "~/source", "std_msgs/msg/String", dds.Latched, func(s dds.Sample) {
		var m rosmsg.String
		if err := cdr.Unmarshal(s.Data, &m); err != nil {
			t.Errorf("~/source sample: %v", err)
			return
		}
		l.mu.Lock()
		l.seen = append(l.seen, m.Data)
		l.mu.Unlock()
	})
	return l
}

// waitSource waits until l's last sample is want.
func (l *sourceLog) wait(t *testing.T, want string, d time.Duration) {
	t.Helper()
	if err := testkit.Eventually(testkit.Bound(d), func() error {
		if s := l.all(); len(s) == 0 || s[len(s)-1] != want {
			return fmt.Errorf("~/source samples %q", s)
		}
		return nil
	}); err != nil {
		t.Fatalf("~/source is not %q within %v: %v", want, d, err)
	}
}

// Speeds stay under the contact reflex's V_MIN (0.08 m/s): on the stand the wheels turn in the air, the
// LiDAR sees no motion, and a longer drive at 0.1 m/s would latch a contact (docs/contact.md).

// arb is TestArbitration's shared fixture; each subtest takes its own copy (at) so that failures are its own.
type arb struct {
	*rig
	dom int
}

// at is a with the rig's checks failing t.
func (a *arb) at(t *testing.T) *arb {
	r := *a.rig
	r.t = t
	return &arb{rig: &r, dom: a.dom}
}

func (a *arb) peer(t *testing.T, name string) *ros2.Peer {
	t.Helper()
	p, err := ros2.NewPeer(a.dom, "", ros2.NodeName, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func (a *arb) on(t *testing.T, p *ros2.Peer, topic string) *ros2.CmdVel {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	w, err := p.CmdVelOn(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// clear resets and enables the driver and waits until no sender is left from an earlier subtest.
func (a *arb) clear(t *testing.T) {
	t.Helper()
	c := a.st.Client()
	c.Reset(context.Background())
	c.Enable(context.Background(), true)
	a.eventually(5*time.Second, "enabled, no e-stop, no sender, nobody driving", func(s api.State) bool {
		return s.EStop == nil && s.Enabled && len(s.Publishers) == 0 && s.Source == "none" && !moving(s)
	})
}

// near reports whether the wheels' velocity is (vx, vy, wz) within 1 mm/s (1 mrad/s).
func near(s api.State, vx, vy, wz float64) bool {
	return math.Abs(s.BodyVel[0]-vx) < 1e-3 && math.Abs(s.BodyVel[1]-vy) < 1e-3 && math.Abs(s.BodyVel[2]-wz) < 1e-3
}

// TestArbitration: the node's three velocity inputs on the simulated robot. A teleop on manual/cmd_vel and
// a "Nav2" on autonomous/cmd_vel arbitrate without a trip, with the hand-over at source_timeout; cmd_vel
// next to autonomous/cmd_vel does not trip either; two publishers on manual/cmd_vel do; ~/source is latched
// for late joiners; --cmd-vel-stamped takes TwistStamped.
func TestArbitration(t *testing.T) {
	if !testkit.RaceEnabled {
		testkit.NeedsQuietMachine(t) // teleop-over-nav2: each hand-over within 5 ms of the driver's timer
	}
	a := &arb{rig: startRig(t), dom: mustAtoi(os.Getenv("ROS_DOMAIN_ID"))}
	t.Run("teleop-over-nav2", func(t *testing.T) { a.at(t).teleopOverNav2(t) })
	t.Run("late-joiner", func(t *testing.T) { a.at(t).lateJoiner(t) })
	t.Run("cmd_vel-and-autonomous", func(t *testing.T) { a.at(t).cmdVelAndAutonomous(t) })
	t.Run("two-manual", func(t *testing.T) { a.at(t).twoManual(t) })
	t.Run("stamped", func(t *testing.T) { a.at(t).stamped(t) })
}

// teleopOverNav2: "Nav2" strafes left on autonomous/cmd_vel at 20 Hz all along; a teleop drives forward on
// manual/cmd_vel at 20 Hz and lets go, several times. The wheels follow manual while it publishes, ~/source
// says who drives, nothing trips, and the hand-over back to autonomous comes at source_timeout (0.2 s) after
// manual's last command (the driver's SourceChange.previous_cmd_age_s): never before, the median within 1 ms
// (a loaded machine delays the driver's timer now and then: those runs are counted, and 5 ms fails; under
// -race only "never before" is checked).
func (a *arb) teleopOverNav2(t *testing.T) {
	a.clear(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan api.SourceChange, 64)
	go a.st.Client().Follow(ctx, api.TopicSource, func(line []byte) error {
		var c api.SourceChange
		if err := json.Unmarshal(line, &c); err != nil {
			return err
		}
		select {
		case changes <- c:
		case <-ctx.Done():
		}
		return nil
	})
	watcher := a.peer(t, "source_watcher")
	src := watchSource(ctx, t, watcher)
	src.wait(t, "none", 5*time.Second)

	nav := a.on(t, a.peer(t, "nav2"), "autonomous/cmd_vel")
	teleop := a.on(t, a.peer(t, "teleop"), "manual/cmd_vel")
	trips := a.state().Trips
	stopNav := publish(nav, 0, 0.05, 0)
	defer stopNav()
	a.eventually(3*time.Second, "the wheels follow autonomous", func(s api.State) bool { return s.Source == "autonomous" && near(s, 0, 0.05, 0) })
	src.wait(t, "autonomous", 2*time.Second)

	const cycles = 10
	var ages []time.Duration
	for i := 0; i < cycles; i++ {
		// Drain the driver's earlier changes: the hand-over of this cycle is the one to time.
		for len(changes) > 0 {
			<-changes
		}
		stopTeleop := publish(teleop, 0.05, 0, 0)
		a.eventually(3*time.Second, "the wheels follow manual", func(s api.State) bool { return s.Source == "manual" && near(s, 0.05, 0, 0) })
		src.wait(t, "manual", 2*time.Second)
		// While the teleop publishes, manual drives: 20 state reads over a second, none other.
		for j := 0; j < 20; j++ {
			if s := a.state(); s.Source != "manual" || !near(s, 0.05, 0, 0) || s.EStop != nil {
				t.Fatalf("cycle %d: teleop publishing, but source %q, body_vel %v, estop %v", i, s.Source, s.BodyVel, s.EStop)
			}
			time.Sleep(50 * time.Millisecond)
		}
		stopTeleop()
		a.eventually(3*time.Second, "back to autonomous after the teleop let go", func(s api.State) bool { return s.Source == "autonomous" && near(s, 0, 0.05, 0) })
		src.wait(t, "autonomous", 2*time.Second)
		var hand *api.SourceChange
		deadline := time.After(testkit.Bound(2 * time.Second))
		for hand == nil {
			select {
			case c := <-changes:
				if c.Previous == "manual" && c.Source == "autonomous" {
					hand = &c
				}
			case <-deadline:
				t.Fatalf("cycle %d: the driver's source stream gave no manual -> autonomous change", i)
			}
		}
		if hand.PreviousCmdAgeS == nil {
			t.Fatalf("cycle %d: manual -> autonomous without previous_cmd_age_s", i)
		}
		age := *hand.PreviousCmdAgeS
		t.Logf("cycle %d: manual -> autonomous, manual's last command %.4f s old at the hand-over", i, age)
		ages = append(ages, time.Duration(age*float64(time.Second)))
		// Never early: manual drives until its command is source_timeout old. Late by more than the
		// driver's 1 ms only on a loaded machine: counted below; 5 ms late is a failure anywhere.
		if age < 0.200 || age > 0.205 && !testkit.RaceEnabled {
			t.Errorf("cycle %d: hand-over %.4f s after manual's last command, want within [0.200, 0.201] (source_timeout + 1 ms)", i, age)
		}
	}
	over := 0
	for _, d := range ages {
		if d > 201*time.Millisecond {
			over++
		}
	}
	t.Logf("hand-over manual -> autonomous after manual's last command (%d runs): %s; %d over source_timeout + 1 ms", len(ages), testkit.Figures(ages), over)
	if med := testkit.Quantile(ages, 0.5); med < 200*time.Millisecond || med > 201*time.Millisecond && !testkit.RaceEnabled {
		t.Errorf("median hand-over %v after manual's last command, want within [200 ms, 201 ms]", med)
	}
	if s := a.state(); s.EStop != nil || s.Trips != trips {
		t.Errorf("teleop and Nav2 on their own inputs: estop %v, trips %d -> %d (want no trip)", s.EStop, trips, s.Trips)
	}
	// ~/source said each hand-over: none, autonomous, then manual and autonomous per cycle (a driver
	// reconnection may repeat a value, never skip one).
	var dedup []string
	for _, s := range src.all() {
		if len(dedup) == 0 || dedup[len(dedup)-1] != s {
			dedup = append(dedup, s)
		}
	}
	want := []string{"none", "autonomous"}
	for i := 0; i < cycles; i++ {
		want = append(want, "manual", "autonomous")
	}
	if fmt.Sprint(dedup) != fmt.Sprint(want) {
		t.Errorf("~/source said %q, want %q", dedup, want)
	}
}

// lateJoiner: a reader of ~/source that joins later gets who drives now at once (transient-local), and it is
// the driver's current source, not a stale one: autonomous while Nav2 publishes, none after.
func (a *arb) lateJoiner(t *testing.T) {
	a.clear(t)
	nav := a.on(t, a.peer(t, "nav2_late"), "autonomous/cmd_vel")
	stop := publish(nav, 0, 0.05, 0)
	defer stop()
	for i, want := range []string{"autonomous", "none"} {
		if i == 1 {
			stop()
		}
		a.eventually(3*time.Second, "source "+want, func(s api.State) bool { return s.Source == want })
		time.Sleep(200 * time.Millisecond) // the bridge has published it: the sample is history, not news
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(3*time.Second))
		first := make(chan string, 1)
		p := a.peer(t, fmt.Sprintf("late_joiner_%d", i))
		go p.Subscribe(ctx, "~/source", "std_msgs/msg/String", dds.Latched, func(s dds.Sample) {
			var m rosmsg.String
			if cdr.Unmarshal(s.Data, &m) == nil {
				select {
				case first <- m.Data:
				default:
				}
			}
		})
		select {
		case got := <-first:
			if got != want {
				t.Errorf("late joiner %d: first ~/source sample %q, want %q (the driver's source now)", i, got, want)
			}
		case <-ctx.Done():
			t.Errorf("late joiner %d: no ~/source sample in 3 s: not latched?", i)
		}
		cancel()
	}
}

// cmdVelAndAutonomous: one publisher on cmd_vel and one on autonomous/cmd_vel, both at 20 Hz for 1.5 s:
// arbitration (autonomous drives), no trip, the bridge holding one stream on each input.
func (a *arb) cmdVelAndAutonomous(t *testing.T) {
	a.clear(t)
	trips := a.state().Trips
	cv := a.on(t, a.peer(t, "plain"), "cmd_vel")
	nav := a.on(t, a.peer(t, "nav2_c"), "autonomous/cmd_vel")
	defer publish(cv, 0.05, 0, 0)()
	defer publish(nav, 0, 0.05, 0)()
	a.eventually(3*time.Second, "autonomous drives", func(s api.State) bool { return s.Source == "autonomous" && near(s, 0, 0.05, 0) })
	for i := 0; i < 30; i++ {
		s := a.state()
		if s.EStop != nil || s.Source != "autonomous" {
			t.Fatalf("cmd_vel + autonomous/cmd_vel: estop %v, source %q (want no trip, autonomous)", s.EStop, s.Source)
		}
		if i == 29 {
			inputs := map[string]int{}
			for _, p := range s.Publishers {
				inputs[p.Input]++
			}
			if len(s.Publishers) != 2 || inputs["cmd_vel"] != 1 || inputs["autonomous"] != 1 {
				b, _ := json.Marshal(s.Publishers)
				t.Errorf("the driver's senders %s, want the bridge once on cmd_vel and once on autonomous", b)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := a.state(); s.Trips != trips {
		t.Errorf("trips %d -> %d", trips, s.Trips)
	}
}

// twoManual: two publishers on manual/cmd_vel (two teleops) trip the e-stop with the input's reason.
func (a *arb) twoManual(t *testing.T) {
	a.clear(t)
	one := a.on(t, a.peer(t, "teleop_1"), "manual/cmd_vel")
	defer publish(one, 0.05, 0, 0)()
	a.eventually(3*time.Second, "one teleop drives", func(s api.State) bool { return s.Source == "manual" && moving(s) })
	if s := a.state(); s.EStop != nil {
		t.Fatalf("one manual publisher tripped: %s", *s.EStop)
	}
	a.on(t, a.peer(t, "teleop_2"), "manual/cmd_vel")
	s := a.eventually(3*time.Second, "a second manual/cmd_vel publisher latches", func(s api.State) bool { return s.EStop != nil })
	if want := ": multiple manual/cmd_vel publishers (ROS 2: 2 matched)"; !strings.HasSuffix(*s.EStop, want) {
		t.Errorf("e-stop reason %q, want it to end in %q", *s.EStop, want)
	}
	a.eventually(time.Second, "stopped", func(s api.State) bool { return !moving(s) })
}

// stamped: `rosorin-base ros2 --cmd-vel-stamped` (set through ROSORIN_CMD_VEL_STAMPED, as `run --ros2`
// passes it on) in a namespace of its own takes TwistStamped on manual/cmd_vel and drives the wheels; a
// Twist publisher does not match its subscription.
func (a *arb) stamped(t *testing.T) {
	a.clear(t)
	cmd := exec.Command(a.st.DriverBinary().Path, "ros2", "--socket", filepath.Join(a.st.Dir(), "base.sock"),
		"--namespace", "stamped", "--node-name", "stamped_driver")
	cmd.Env = append(os.Environ(), "ROSORIN_CMD_VEL_STAMPED=1")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with this test binary
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	p, err := ros2.NewPeer(a.dom, "stamped", "stamped_driver", "stamped_teleop")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(10*time.Second))
	defer cancel()
	w, err := p.CmdVelStampedOn(ctx, "manual/cmd_vel")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	stop := publish(w, 0.05, 0, 0)
	a.eventually(3*time.Second, "a TwistStamped teleop drives", func(s api.State) bool { return s.Source == "manual" && near(s, 0.05, 0, 0) })
	stop()
	// A Twist publisher on the same topic is another type: it does not match (checked for a second).
	tctx, tcancel := context.WithTimeout(context.Background(), time.Second)
	defer tcancel()
	// (A participant of its own: one participant has one type per topic name.)
	plain, err := ros2.NewPeer(a.dom, "stamped", "stamped_driver", "twist_teleop")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if tw, err := plain.CmdVelOn(tctx, "manual/cmd_vel"); err == nil {
		tw.Close()
		t.Error("a Twist publisher matched the --cmd-vel-stamped subscription")
	}
	a.eventually(3*time.Second, "deadman after the stamped teleop", func(s api.State) bool { return !moving(s) })
}
