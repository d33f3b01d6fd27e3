package sim

// Real-time end-to-end tests over ptys; under -race their waits are widened with testkit.Bound.

import (
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/protocol/board"
)

// TestBoardEndToEnd is the end-to-end check over the pty with go.bug.st/serial at 1,000,000 baud:
// IMU 100-120 Hz with valid checksums, battery ~1 Hz; a 0.2 m/s forward frame brings the vibration into
// the spinning band within 1 s; with no further frames the wheels keep turning for 5 s (no watchdog);
// a stop frame brings it back to the still band within 0.6 s.
func TestBoardEndToEnd(t *testing.T) {
	testkit.SkipShort(t, "the sim's 5 s without a watchdog and its stop over the pty at 1 Mbaud (12 s)")
	s := startSim(t, Config{World: "stand", Seed: 11})
	c := openBoard(t, s.BoardPath())

	// Rates over 3 s, after a short settling of the client.
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	time.Sleep(3 * time.Second)
	imu := c.since(t0, board.FuncIMU)
	bat := c.since(t0, board.FuncSys)
	span := time.Since(t0).Seconds()
	imuHz := float64(len(imu)) / span
	t.Logf("IMU %.1f Hz, battery %d reports in %.1f s, parser %+v", imuHz, len(bat), span, c.parserStats())
	if imuHz < float64(minCount(100)) || imuHz > 120 {
		t.Errorf("IMU rate %.1f Hz, want 100-120", imuHz)
	}
	if len(bat) < minCount(2) || len(bat) > 4 {
		t.Errorf("%d battery reports in %.1f s, want about 1 Hz", len(bat), span)
	}
	if st := c.parserStats(); st.BadChecksum != 0 || st.SkippedBytes != 0 {
		t.Errorf("client parser saw bad bytes from a clean sim: %+v", st)
	}
	for _, f := range imu {
		m := f.val.(board.IMU)
		a := math.Sqrt(float64(m.Accel[0]*m.Accel[0] + m.Accel[1]*m.Accel[1] + m.Accel[2]*m.Accel[2]))
		if a < 0.9 || a > 1.05 || math.Abs(float64(m.Gyro[0])+1.7) > 0.5 || math.Abs(float64(m.Gyro[1])+1.6) > 0.5 {
			t.Fatalf("implausible IMU at rest: %+v (|a| %.3f g)", m, a)
		}
	}
	still := c.gyro(t0)
	stillScore := meanScore(still, 0, 3)
	t.Logf("still score %.4f rad/s", stillScore)
	if stillScore < 0.0014 || stillScore > 0.0027 {
		t.Errorf("still score %.4f, want about 0.0016-0.0025", stillScore)
	}

	// Forward 0.2 m/s, one frame, then silence.
	tCmd := time.Now()
	c.write(wheelFrame(t, [3]float64{0.2, 0, 0}))
	time.Sleep(6200 * time.Millisecond)
	g := c.gyro(tCmd)
	up := meanScore(g, 0.6, 1.0)
	spin := meanScore(g, 1.0, 6.2)
	t.Logf("0.2 m/s: score %.4f at 0.6-1.0 s, %.4f over 1.0-6.2 s", up, spin)
	if up < 0.0043 || up > 0.0068 {
		t.Errorf("0.2 m/s vibration %.4f between 0.6 and 1.0 s after the command, want the spinning band ~0.005-0.006", up)
	}
	if spin < 0.0046 || spin > 0.0064 {
		t.Errorf("0.2 m/s mean vibration %.4f, want ~0.005-0.006", spin)
	}
	// No watchdog: every window from 1 s to 6.2 s after the only motor frame is loud.
	for _, w := range vibration.WindowsBetween(g, 1.0, 6.2, judgeParams) {
		if w.NoData || w.Score < judgeParams.Threshold {
			t.Errorf("vibration dropped to %.4f (%d samples) at %.2f s with no stop sent: the board must keep the wheels turning", w.Score, w.N, w.End)
			break
		}
	}
	if tr := s.Truth(); math.Abs(tr.WheelRPS[0]-0.796) > 0.02 {
		t.Errorf("truth wheel 0 at %.3f rps 6 s after the only command, want 0.796", tr.WheelRPS[0])
	}

	// Stop.
	tStop := time.Now()
	c.write(board.StopFrame())
	time.Sleep(2500 * time.Millisecond)
	g = c.gyro(tStop.Add(-time.Second))
	v := judgeStop(g, 1.0)
	t.Logf("stop -> still %.3f s (judge/vibration judge): %s", v.StillFrom, v.Line("stop frame, fwd 0.2"))
	if lim := boundS(0.6); math.IsNaN(v.StillFrom) || v.StillFrom > lim {
		t.Errorf("stop frame: still after %.2f s, want within %.1f s", v.StillFrom, lim)
	}
	if after := meanScore(g, 2.0, 3.5); after > 0.0027 {
		t.Errorf("after the stop the score is %.4f, want the still band", after)
	}
	// The sim saw the two motor frames, with arrival times.
	var motor []Received
	for _, r := range s.Received() {
		if r.Func == board.FuncMotor {
			motor = append(motor, r)
		}
	}
	if len(motor) != 2 || motor[1].T.Sub(motor[0].T) < 6*time.Second {
		t.Errorf("received motor frames %+v, want 2 about 6.2 s apart", motor)
	}
}

// TestStandRotationAndFast checks the other characterised levels through the pty: 0.35 m/s and rotation
// at 1.0 rad/s, and their stop times.
func TestStandRotationAndFast(t *testing.T) {
	testkit.SkipShort(t, "the 0.35 m/s and 1 rad/s levels and their stops over the pty (8 s)")
	s := startSim(t, Config{World: "stand", Seed: 12})
	c := openBoard(t, s.BoardPath())
	time.Sleep(100 * time.Millisecond)
	for _, tc := range []struct {
		name   string
		v      [3]float64
		lo, hi float64
	}{
		{"forward 0.35", [3]float64{0.35, 0, 0}, 0.006, 0.010},
		{"rotate 1.0", [3]float64{0, 0, 1}, 0.0038, 0.0058},
	} {
		t0 := time.Now()
		c.write(wheelFrame(t, tc.v))
		time.Sleep(2500 * time.Millisecond)
		c.write(board.StopFrame())
		time.Sleep(800*time.Millisecond + testkit.Bound(700*time.Millisecond)) // room for the widened bound below
		g := c.gyro(t0)
		sc := meanScore(g, 1.0, 2.5)
		v := judgeStop(g, 2.5)
		t.Logf("%s: score %.4f, stop -> still %.3f s", tc.name, sc, v.StillFrom)
		if sc < tc.lo || sc > tc.hi {
			t.Errorf("%s: score %.4f outside %.4f-%.4f", tc.name, sc, tc.lo, tc.hi)
		}
		if lim := boundS(0.7); math.IsNaN(v.StillFrom) || v.StillFrom > lim {
			t.Errorf("%s: still after %.2f s, want within %.1f s: %s", tc.name, v.StillFrom, lim, v.Line(tc.name))
		}
	}
}
