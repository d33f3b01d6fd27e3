//go:build ros2 && linux && cgo

package ros2_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
)

// TestObsEndToEnd: against `rosorin-base run --ros2` on the simulated robot, the C peer (Cyclone's own types
// and serializer) reads /tf_static with both mounts, /rosout with the driver's, the supervisor's and the
// bridge's lines (the e-stop's reason at WARN or above), and /diagnostics: the gate OK, ERROR with the reason
// on a latched e-stop, OK again after reset.
func TestObsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot, the driver service with ROS 2 and a C peer")
	}
	checkObs(t, startRigWith(t, buildObsPeer(t)))
}

// TestFastDDSObs is TestObsEndToEnd with the Fast DDS peer (testdata/fastobspeer: fastddsgen types of
// testdata/obspeer/obs.idl, Fast CDR, rmw_fastrtps's participant and reader QoS).
func TestFastDDSObs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot, the driver service with ROS 2 and a Fast DDS peer")
	}
	checkObs(t, startRigWith(t, buildFastObsPeer(t)))
}

// checkObs: the peer of r reads /tf_static, /rosout and /diagnostics as TestObsEndToEnd says.
func checkObs(t *testing.T, r *rig) {
	p := r.peer
	defer func() {
		if strings.Contains(r.logText(), "DATA RACE") { // a -race build of the service
			t.Error("the race detector reported a data race in the service's processes")
		}
	}()
	p.wait(t, 0, "ready", 10*time.Second, nil)
	gate := ros2.NodeName + ": " + ros2.TaskGate + "|"

	t.Run("tf_static", func(t *testing.T) {
		p.wait(t, 0, "tf_static base_link laser 0.048156 0.0000756 0.106748 0.000000 0.000000 1.000000 0.000000", 10*time.Second, nil)
		// yaw 1.5707, pitch -0.0087266: the seed's static_transform_publisher arguments.
		p.wait(t, 0, "tf_static base_link imu_link -0.027258 -0.0000564 0.048046 ", 5*time.Second, func(l string) bool {
			f := strings.Fields(l)
			return len(f) == 10 && f[6] == "0.003085" && f[7] == "-0.003085" && f[8] == "0.707066" && f[9] == "0.707134"
		})
		if n := p.count(0, "tf "); n != 0 {
			t.Errorf("%d odom transforms on /tf with publish_odom_tf off", n)
		}
	})
	t.Run("rosout", func(t *testing.T) {
		defer func() {
			if t.Failed() {
				p.mu.Lock()
				for _, l := range p.lines {
					if strings.HasPrefix(l, "rosout ") {
						t.Log(l)
					}
				}
				p.mu.Unlock()
			}
		}()
		for _, proc := range []string{"proc=driver", "proc=supervisor", "proc=ros2"} {
			p.wait(t, 0, "rosout ", 10*time.Second, func(l string) bool {
				return strings.Contains(l, " "+ros2.NodeName+" ") && strings.Contains(l, proc)
			})
		}
	})
	t.Run("supervisor", func(t *testing.T) {
		// The supervisor's status file reached the bridge (restarts, watchdog): its status is not the fallback.
		l := p.wait(t, 0, "diag ", 10*time.Second, func(l string) bool {
			return !strings.HasPrefix(l, "diag 3 ") && strings.Contains(l, " "+ros2.NodeName+": "+ros2.TaskSupervisor+"|")
		})
		t.Log(l)
		if strings.Contains(l, "not readable") || strings.Contains(l, "without a supervisor") {
			t.Errorf("supervisor status %q", l)
		}
	})
	t.Run("bridge", func(t *testing.T) {
		// The service's view of this bridge (run --ros2): its status is in /diagnostics too.
		l := p.wait(t, 0, "diag ", 10*time.Second, func(l string) bool {
			return strings.Contains(l, " "+ros2.NodeName+": "+ros2.TaskBridge+"|")
		})
		t.Log(l)
		if strings.HasPrefix(l, "diag 2 ") {
			t.Errorf("bridge status %q", l)
		}
	})
	t.Run("stop-performance", func(t *testing.T) {
		// The driver's stop monitor (issue 35) in /diagnostics, read by the peer: OK with no stop timed yet.
		l := p.wait(t, 0, "diag 0 "+ros2.NodeName+": "+ros2.TaskStops+"|", 10*time.Second, nil)
		t.Log(l)
	})
	t.Run("estop-watch", func(t *testing.T) {
		// The bridge's own status: the watch reads the e-stop writers' state (OK), Cyclone's internals on.
		l := p.wait(t, 0, "diag 0 "+ros2.NodeName+": "+ros2.TaskEStopWatch+"|watching ", 10*time.Second, nil)
		t.Log(l)
	})
	t.Run("estop", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// A loaded machine can have latched the e-stop already (a watchdog restart starts latched): clear it.
		m := p.mark()
		var s api.State
		if err := testkit.Eventually(testkit.Bound(10*time.Second), func() (err error) {
			s, err = r.st.Client().State(ctx)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if s.EStop != nil {
			t.Logf("latched before the test: %s; resetting", *s.EStop)
			if _, err := r.st.Client().Reset(ctx); err != nil {
				t.Fatal(err)
			}
		}
		p.wait(t, m, "diag 0 "+gate, 10*time.Second, nil)
		m = p.mark()
		const reason = "obs test: bumper pressed"
		if _, err := r.st.Client().EStop(ctx, reason); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		l := p.wait(t, m, "diag 2 "+gate, 3*time.Second, nil)
		if !strings.Contains(l, "|E-STOP latched: ") || !strings.Contains(l, reason) {
			t.Errorf("diagnostics line %q lacks the reason", l)
		}
		t.Logf("/diagnostics ERROR %v after the e-stop", time.Since(t0).Round(time.Millisecond))
		l = p.wait(t, m, "rosout ", 5*time.Second, func(l string) bool { return strings.Contains(l, reason) })
		if f := strings.Fields(l); f[1] != "30" && f[1] != "40" {
			t.Errorf("the e-stop's line at level %s: %q", f[1], l)
		}
		m = p.mark()
		if _, err := r.st.Client().Reset(ctx); err != nil {
			t.Fatal(err)
		}
		p.wait(t, m, "diag 0 "+gate, 3*time.Second, nil)
		r.eventually(time.Second, "reset", func(s api.State) bool { return s.EStop == nil })
	})
}

// TestObsOdomTF: with publish_odom_tf: true (a second parameter file) the node publishes odom -> base_link on
// /tf from the wheel odometry, and the transform follows the wheels (TestObsEndToEnd is the parameter off: no
// /tf).
func TestObsOdomTF(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot, the driver service with ROS 2 and a C peer")
	}
	loopbackEnv(t)
	peerBin := buildObsPeer(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(30*time.Second))
	defer cancel()
	st, _ := startSimTarget(t, 30*time.Second, target.SimConfig{Params: []string{"publish_odom_tf=true"}})
	p := startPeer(t, peerBin)
	p.wait(t, 0, "ready", 10*time.Second, nil)
	p.wait(t, 0, "tf odom base_link 0.0000 0.0000", 10*time.Second, nil)
	// Drive forward on the gamepad-free socket path: the odometry's x grows, and so does the transform's.
	cl := st.Client()
	cl.Reset(ctx) // a watchdog restart under load starts latched
	if _, err := cl.Enable(ctx, true); err != nil {
		t.Fatal(err)
	}
	m := p.mark()
	deadline := time.Now().Add(testkit.Bound(5 * time.Second))
	for p.count(m, "tf odom base_link 0.0") == p.count(m, "tf odom base_link 0.0000") {
		if time.Now().After(deadline) {
			t.Fatal("the odom transform did not follow the wheels")
		}
		cl.CmdVel(ctx, api.Twist{VX: 0.1})
		time.Sleep(50 * time.Millisecond)
	}
}

// TestObsStale: a second bridge (`rosorin-base ros2 --node-name`, on its own) follows the rig's driver; its
// statuses are OK from the state record, and when the service is gone (the driver with it) they turn STALE
// within diagStaleAfter (2 s) and a report.
func TestObsStale(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot, the driver service with ROS 2 and a C peer")
	}
	r := startRigWith(t, buildObsPeer(t))
	p := r.peer
	bin := buildTagged(t)
	cmd := exec.Command(bin, "ros2", "--socket", r.st.Client().Path(), "--node-name", "obs_second")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	gate := "obs_second: " + ros2.TaskGate + "|"
	p.wait(t, 0, "diag ", 15*time.Second, func(l string) bool {
		return (strings.HasPrefix(l, "diag 0 ") || strings.HasPrefix(l, "diag 2 ")) && strings.Contains(l, gate)
	})
	m := p.mark()
	t0 := time.Now()
	r.st.Close()
	l := p.wait(t, m, "diag 3 "+gate, 5*time.Second, nil)
	t.Logf("STALE %v after the service stopped: %s", time.Since(t0).Round(time.Millisecond), l)
	if !strings.Contains(l, "no state record from the driver") {
		t.Errorf("stale line %q", l)
	}
}

// TestObsInternalsOff: a bridge whose load-time check finds another libddsc release (made to believe so with
// dds.TestRuntimeLibraryEnv) says at ERROR at start that the e-stop watch's announced-sample rule and catch-up
// are off, and shows the status "e-stop watch" at ERROR on /diagnostics; the rig's own bridge (the right
// release) shows it OK at the same time.
func TestObsInternalsOff(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot, the driver service with ROS 2 and a C peer")
	}
	r := startRigWith(t, buildObsPeer(t))
	p := r.peer
	bin := buildTagged(t)
	var stderr strings.Builder
	cmd := exec.Command(bin, "ros2", "--socket", r.st.Client().Path(), "--node-name", "obs_off")
	cmd.Env = append(os.Environ(), dds.TestRuntimeLibraryEnv+"=/usr/lib/x86_64-linux-gnu/libddsc.so.0.10.3")
	cmd.Stderr = &stderr // read after Wait
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	l := p.wait(t, 0, "diag 2 obs_off: "+ros2.TaskEStopWatch+"|", 15*time.Second, nil)
	if !strings.Contains(l, "catch-up off") || !strings.Contains(l, "0.10.3") {
		t.Errorf("the off bridge's watch status %q", l)
	}
	p.wait(t, 0, "diag 0 "+ros2.NodeName+": "+ros2.TaskEStopWatch+"|watching ", 10*time.Second, nil)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	out := stderr.String()
	if !strings.Contains(out, "level=ERROR") || !strings.Contains(out, "Cyclone DDS internals off") || !strings.Contains(out, "0.10.3") {
		t.Errorf("the off bridge did not say it at ERROR:\n%s", out)
	}
}
