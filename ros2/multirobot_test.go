//go:build ros2 && linux && cgo

package ros2_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/sim"
)

// watch records a robot's sim truth and driver state every 10 ms until stopped: the largest wheel speed
// (actual and commanded) and whether the e-stop was ever latched.
type watch struct {
	mu        sync.Mutex
	maxWheel  float64
	maxTarget float64
	latched   string
	samples   int
	stop      chan struct{}
	done      chan struct{}
}

func watchRobot(t *testing.T, st *stacktest.Stack) *watch {
	w := &watch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			tr := st.Sim.Truth()
			w.mu.Lock()
			for i := range tr.WheelRPS {
				w.maxWheel = math.Max(w.maxWheel, math.Abs(tr.WheelRPS[i]))
				w.maxTarget = math.Max(w.maxTarget, math.Abs(tr.TargetRPS[i]))
			}
			w.samples++
			w.mu.Unlock()
			if n%5 == 0 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				s, err := st.Client.State(ctx)
				cancel()
				if err == nil && s.EStop != nil {
					w.mu.Lock()
					if w.latched == "" {
						w.latched = *s.EStop
					}
					w.mu.Unlock()
				}
			}
		}
	}()
	t.Cleanup(w.end)
	return w
}

// stillRPS: the sim's wheels coast down exponentially after a stop frame (6e-5 rps 2 s later); below this
// they stand still.
const stillRPS = 0.01

func maxAbs(v [4]float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func (w *watch) end() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

func (w *watch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("%d samples, max wheel %.3f rps, max target %.3f rps, latched %q", w.samples, w.maxWheel, w.maxTarget, w.latched)
}

// TestTwoRobotsByNamespace: two simulated robots, each `rosorin-base run --ros2 --ros-args -r __ns:=/rN`
// with its own sim, on one domain on loopback. The C peer in /r1 sees both nodes with their namespaces on
// ros_discovery_info and /r1's topics with r1/ frame ids; it drives /r1/cmd_vel and e-stops /r1/estop: /r1's
// wheels turn, then stop with the e-stop latched, while /r2's wheels (enabled, ready to move) never turn
// and its e-stop never latches. The positive control: a peer then drives /r2's wheels (the watch
// could have seen them move). /r2 also runs as node base2 with its cmd_vel remapped to x/cmd_vel: the
// remap reaches the bridge (a peer on /r2/cmd_vel no longer moves it; one on /r2/x/cmd_vel does).
func TestTwoRobotsByNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two simulated robots, two driver services with ROS 2 and C peers")
	}
	loopbackEnv(t)
	base := buildTagged(t)
	peerBin := buildPeer(t)
	robot := func(seed int64, ros ...string) *stacktest.Stack {
		return stacktest.NewSim(t, sim.Config{World: "stand", Seed: seed}, stacktest.Options{Bin: base, Config: stacktest.RobotConfig,
			// The stand: every spin looks like a contact; the reflex would latch the e-stop under the test.
			Args: append([]string{"--ros2", "--contact", "log", "--ros-args"}, ros...)})
	}
	// /r2 also takes a node name and a remap of its lowest-priority velocity input (the bridge applies it).
	r1, r2 := robot(1, "-r", "__ns:=/r1"), robot(2, "-r", "__ns:=/r2", "-r", "__node:=base2", "-r", "cmd_vel:=x/cmd_vel")
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(60*time.Second))
	defer cancel()
	for _, r := range []*stacktest.Stack{r1, r2} {
		if _, err := r.Client.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if rep, err := r.Client.Enable(ctx, true); err != nil || !rep.Success {
			t.Fatalf("enable: %+v %v", rep, err)
		}
	}
	w1, w2 := watchRobot(t, r1), watchRobot(t, r2)

	p := startPeer(t, peerBin, "/r1")
	p.wait(t, 0, "ready", 10*time.Second, nil)
	p.wait(t, 0, "node /r1 "+ros2.NodeName+" ", 15*time.Second, nil)
	p.wait(t, 0, "node /r2 base2 ", 15*time.Second, nil)
	if l := p.wait(t, 0, "imu ", 10*time.Second, nil); strings.Fields(l)[3] != "r1/imu_link" {
		t.Errorf("/r1/imu/data_raw line %q: want frame r1/imu_link", l)
	}
	if l := p.wait(t, 0, "odom ", 10*time.Second, nil); !strings.HasPrefix(l, "odom r1/odom r1/base_link ") {
		t.Errorf("/r1/wheel/odom line %q: want frames r1/odom r1/base_link", l)
	}
	p.wait(t, 0, `state {"stamp"`, 10*time.Second, func(l string) bool { return strings.Contains(l, `"enabled":true`) })

	drive := func(p *peer, d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			p.send(t, "twist 0.1 0 0")
		}
	}
	drive(p, 1500*time.Millisecond)
	if tr := r1.Sim.Truth(); tr.WheelRPS == [4]float64{} {
		t.Fatalf("/r1's wheels do not turn under /r1/cmd_vel: truth %+v; %s", tr, w1)
	}
	p.send(t, "estop 1")
	err := testkit.Eventually(testkit.Bound(2*time.Second), func() error {
		s, err := r1.Client.State(ctx)
		if err != nil || s.EStop == nil {
			return fmt.Errorf("not latched (%v)", err)
		}
		if tr := r1.Sim.Truth(); maxAbs(tr.WheelRPS) > stillRPS || tr.TargetRPS != [4]float64{} {
			return fmt.Errorf("wheels %v target %v", tr.WheelRPS, tr.TargetRPS)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("/r1/estop: %v", err)
	}
	drive(p, 500*time.Millisecond) // latched: the twists are refused
	if tr := r1.Sim.Truth(); maxAbs(tr.WheelRPS) > stillRPS || tr.TargetRPS != [4]float64{} {
		t.Errorf("/r1 latched, still driven: wheels %v target %v", tr.WheelRPS, tr.TargetRPS)
	}
	w2.end()
	t.Logf("/r1: %s", w1)
	t.Logf("/r2 while /r1 was driven and e-stopped: %s", w2)
	if w2.samples < 100 || w2.maxWheel != 0 || w2.maxTarget != 0 || w2.latched != "" {
		t.Errorf("/r2 was touched by /r1's peer: %s", w2)
	}
	if s, err := r2.Client.State(ctx); err != nil || s.EStop != nil || !s.Enabled {
		t.Errorf("/r2 state after: %+v %v; want enabled, not latched", s, err)
	}

	// /r2's cmd_vel input is remapped to /r2/x/cmd_vel: a peer on /r2/cmd_vel does not move it, and (the
	// positive control, which shows the watch could have seen motion) a peer on /r2/x/cmd_vel does.
	w2b := watchRobot(t, r2)
	p2 := startPeer(t, peerBin, "/r2")
	p2.wait(t, 0, "ready", 10*time.Second, nil)
	drive(p2, 1500*time.Millisecond)
	w2b.end()
	if n := p2.count(0, "matched cmd_vel 1"); n != 0 {
		t.Errorf("a subscriber matched /r2/cmd_vel (%d lines)", n)
	}
	if w2b.maxWheel != 0 || w2b.maxTarget != 0 {
		t.Errorf("/r2/cmd_vel moved /r2 although its input is remapped to /r2/x/cmd_vel: %s", w2b)
	}
	w2c := watchRobot(t, r2)
	p3 := startPeer(t, peerBin, "/r2/x")
	p3.wait(t, 0, "ready", 10*time.Second, nil)
	drive(p3, 1500*time.Millisecond)
	w2c.end()
	p3.wait(t, 0, "matched cmd_vel 1", time.Second, nil)
	if w2c.maxWheel == 0 {
		t.Errorf("positive control: /r2's wheels did not turn under /r2/x/cmd_vel: %s", w2c)
	}
	t.Logf("/r2 under /r2/cmd_vel: %s; under /r2/x/cmd_vel: %s", w2b, w2c)
}
