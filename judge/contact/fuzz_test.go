package contact

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/scanmatch"
)

// FuzzMonitor feeds hostile sequences (any times, out of order, NaN, huge values, degenerate estimates,
// failures): the monitor never panics, every contact comes from a judged estimate with a finite reason, and
// a degenerate estimate along every direction never trips a linear command.
func FuzzMonitor(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte(strings.Repeat("\x01\x10\x00\x00\x00\x00\x00\x00\x00\x00\x02\x03", 40)))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, _ := New(DefaultConfig())
		now := t0
		sideways := false // a strafe command was given: it may be judged across the degenerate direction
		f64 := func(i int) float64 {
			if i+8 > len(b) {
				return 0
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
		}
		for i := 0; i < len(b); i += 9 {
			op := b[i] % 6
			v := f64(i + 1)
			dt := time.Duration(int8(b[i])) * 5 * time.Millisecond
			now = now.Add(dt)
			switch op {
			case 0:
				m.Command(now, kinematics.Twist{VX: v})
			case 1:
				m.Command(now, kinematics.Twist{VX: 0.2, VY: math.Mod(v, 1)})
				sideways = true
			case 2:
				m.Gyro(now, v)
			case 3:
				e := scanmatch.Estimate{Pose: scanmatch.Pose2{X: v}, Degenerate: true, Weak: [3]float64{1, 0, 0}}
				if d := m.Odometry(Odo{T: now, E: e}); d.Contact && !d.Event.Turn && !sideways {
					t.Fatalf("contact along the degenerate direction: %s", d.Event.Reason)
				}
			case 4:
				d := m.Odometry(Odo{T: now, E: scanmatch.Estimate{Pose: scanmatch.Pose2{X: math.Mod(v, 10)}}})
				if d.Contact && (strings.Contains(d.Event.Reason, "NaN") || !m.Status().Judging) {
					t.Fatalf("contact %q with status %+v", d.Event.Reason, m.Status())
				}
			case 5:
				m.OdometryFailed(now)
			}
			m.Tick(now)
		}
	})
}
