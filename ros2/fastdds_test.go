//go:build ros2 && linux && cgo

package ros2_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
)

// fastOneShot runs `fastpeer oneshot-estop qos keepAliveMs value` (bin from buildFastPeer) with the test's
// environment (ROS_DOMAIN_ID): a new Fast DDS participant waits for a matched subscription on rt/estop (10 s at
// most), writes std_msgs/Bool once, sleeps keepAlive and exits, as `ros2 topic pub --once` does. qos is "tl"
// (reliable, transient-local, keep last 1: Humble's ros2 topic pub), "volatile" (reliable, volatile, keep
// last 10: the rclcpp/rclpy default) or "be" (best effort, volatile, 10). wrote is the CLOCK_REALTIME the
// peer read right before the write.
func fastOneShot(t *testing.T, bin, qos string, keepAlive time.Duration, value bool) (wrote time.Time, err error) {
	t.Helper()
	v := "0"
	if value {
		v = "1"
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(20*time.Second+keepAlive))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "oneshot-estop", qos, strconv.FormatInt(keepAlive.Milliseconds(), 10), v)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var sec, nsec int64
		if n, _ := fmt.Sscanf(sc.Text(), "wrote %d %d", &sec, &nsec); n == 2 {
			wrote = time.Unix(sec, nsec)
		}
	}
	switch {
	case err != nil:
		return wrote, fmt.Errorf("fastpeer oneshot-estop %s: %v\n%s%s", qos, err, out, stderr.Bytes())
	case wrote.IsZero():
		return wrote, fmt.Errorf("fastpeer oneshot-estop %s printed no wrote line:\n%s%s", qos, out, stderr.Bytes())
	}
	return wrote, nil
}

// TestFastDDSPeer: the same rig as TestPeerEndToEnd with the Fast DDS peer (rmw_fastrtps_cpp's wire, Fast
// CDR): the node on ros_discovery_info, the topics decoded by Fast CDR (IMU at ~110 Hz), ~/state for a late
// joiner (transient-local), driving through cmd_vel, e-stops reliable and best effort while commands arrive,
// the two-publisher rule, and the peer's exit unmatching its publisher. Services are not tried: they do not
// interoperate between rmw_fastrtps and rmw_cyclonedds (docs/ros2.md); the control socket clears instead.
func TestFastDDSPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a simulated robot, the driver service with ROS 2 and a Fast DDS peer")
	}
	bin := buildFastPeer(t)
	r := startRigWith(t, bin)
	p := r.peer
	checkTopics(t, p, " (Fast DDS reader)")

	t.Run("late-joiner-state", func(t *testing.T) {
		// A second Fast DDS participant, long after ~/state was first written. Its reader requests
		// transient-local, which a volatile writer never matches: any state proves the durability offered.
		lp := startPeer(t, bin)
		lp.wait(t, 0, "ready", 10*time.Second, nil)
		l := lp.wait(t, 0, `state {"stamp"`, 5*time.Second, nil)
		var s api.State
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "state ")), &s); err != nil || s.Stamp.IsZero() || s.PIDs.Driver == 0 {
			t.Errorf("late joiner's ~/state %q: %v", l, err)
		}
		lp.send(t, "quit")
	})

	c := r.st.Client()
	clear := func(t *testing.T) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
		defer cancel()
		if _, err := c.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Enable(ctx, true); err != nil {
			t.Fatal(err)
		}
		r.eventually(3*time.Second, "e-stop cleared and enabled", func(s api.State) bool { return s.EStop == nil && s.Enabled })
	}
	drive := func(t *testing.T) {
		t.Helper()
		deadline := time.Now().Add(testkit.Bound(3 * time.Second))
		for !moving(r.state()) {
			if time.Now().After(deadline) {
				t.Fatal("the Fast DDS peer's twists did not move the wheels")
			}
			p.send(t, "twist 0.1 0 0")
			time.Sleep(30 * time.Millisecond)
		}
	}

	t.Run("drive-estop", func(t *testing.T) {
		clear(t)
		m := p.mark()
		p.send(t, "twist 0.1 0 0")
		p.wait(t, m, "matched cmd_vel 1", 5*time.Second, nil)
		drive(t)
		// Control: data false on estop is no e-stop.
		p.send(t, "estop 0")
		for i := 0; i < 10; i++ {
			p.send(t, "twist 0.1 0 0")
			time.Sleep(20 * time.Millisecond)
		}
		if s := r.state(); s.EStop != nil || !moving(s) {
			t.Fatalf("estop 0: latched %v, body_vel %v", s.EStop, s.BodyVel)
		}
		for _, kind := range []string{"estop", "estop_be"} {
			p.send(t, kind+" 1")
			for i := 0; i < 10; i++ { // commands keep arriving: the latch holds
				p.send(t, "twist 0.1 0 0")
				time.Sleep(20 * time.Millisecond)
			}
			s := r.eventually(time.Second, kind+" latches", func(s api.State) bool { return s.EStop != nil && !moving(s) })
			if !strings.Contains(*s.EStop, "estop topic (ROS 2)") {
				t.Errorf("%s: e-stop reason %q", kind, *s.EStop)
			}
			clear(t) // Fast DDS cannot call ~/reset_estop and ~/enable: the control socket does
			drive(t)
		}
	})

	t.Run("two-publishers", func(t *testing.T) {
		clear(t)
		p.send(t, "twist2 0.1 0 0")
		s := r.eventually(3*time.Second, "a second Fast DDS cmd_vel writer latches", func(s api.State) bool { return s.EStop != nil })
		if !strings.Contains(*s.EStop, "multiple cmd_vel publishers") {
			t.Errorf("e-stop reason %q", *s.EStop)
		}
		r.eventually(time.Second, "stopped", func(s api.State) bool { return !moving(s) })
	})

	t.Run("quit", func(t *testing.T) {
		// The peer deletes its participant: the bridge sees its cmd_vel writers go and closes its stream.
		p.send(t, "quit")
		r.eventually(3*time.Second, "no cmd_vel publisher after the Fast DDS peer left", func(s api.State) bool { return len(s.Publishers) == 0 })
	})
	if n := p.count(0, "error"); n > 0 {
		t.Errorf("the Fast DDS peer printed %d error lines", n)
	}
}
