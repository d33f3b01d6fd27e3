package scanmatch

import (
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/sim"
)

// simPacketScans makes scans the way the sim's LiDAR link and the driver do: sim.LidarModel.Packet for
// packet k of each revolution from the pose when it is sent (17 per 100 ms, as sim/core.go paces them),
// binned by coind6.Assembler with the driver's DefaultScanConfig. It checks this package's assumptions
// about the bin order, the flip, the mount and the sweep against the real path rather than world.scan's.
func simPacketScans(seed int64, room *sim.Room, traj trajectory, revs int) []coind6.Scan {
	lid := sim.NewLidarModel(seed, room)
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	per := time.Second / sim.LidarRevHz / (sim.LidarPacketsPerRev + 1)
	var out []coind6.Scan
	var buf []sim.LidarSample
	for step := 0; len(out) < revs; step++ {
		k := step % (sim.LidarPacketsPerRev + 1)
		sent := time.Duration(step+1) * per
		samples, fsa, lsa := lid.Packet(k, traj(sent.Seconds()), buf)
		buf = samples
		p := coind6.Packet{FSA: coind6.DegToRaw(fsa), LSA: coind6.DegToRaw(lsa)}
		if k == 0 {
			p.CT = sim.LidarRingStartCT
		}
		for _, x := range samples {
			p.Samples = append(p.Samples, coind6.Sample{Intensity: x.Intensity, DistMM: x.DistMM})
		}
		if s, ok := asm.Add(p, epoch.Add(sent)); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestSimPacketPath: a 15 cm strafe, a 1.5 s leg at 0.35 m/s and a quarter turn through the sim's packet
// path read within 3 mm, 1 % and 0.3 degree (the sim samples the pose once per packet, 5.9 ms apart, so
// its scans are a little coarser than world.scan's).
func TestSimPacketPath(t *testing.T) {
	start := sim.DefaultRoom().Start
	cases := []struct {
		name string
		traj trajectory
	}{
		{"strafe 15 cm", leg(start, 0.5, 0, 1, 0.2, 0, 1, 0.55)},
		{"leg 0.35 m/s", leg(start, 0.5, 1, 0, 0.35, 0, 1, 1.5)},
		{"quarter turn 1 rad/s", leg(start, 0.5, 0, 0, 0, 1, 1, math.Pi/2-0.2)},
	}
	for i, c := range cases {
		scans := simPacketScans(int64(300+i), sim.DefaultRoom(), c.traj, 40)
		o, _ := New(DefaultConfig())
		var e, first Estimate
		for k, s := range scans {
			var err error
			if e, err = o.Add(s, Aux{}); err != nil {
				t.Fatalf("%s: scan %d: %v", c.name, k, err)
			}
			if k == 0 {
				first = e
			}
		}
		at := func(tm time.Time) Pose2 { p := c.traj(tm.Sub(epoch).Seconds()); return Pose2{p[0], p[1], p[2]} }
		want := at(first.Time).Between(at(e.Time))
		ex, ey, eyaw := e.Pose.X-want.X, e.Pose.Y-want.Y, wrap(e.Pose.Yaw-want.Yaw)*180/math.Pi
		dist := math.Hypot(want.X, want.Y)
		t.Logf("%-22s truth (%.1f, %.1f) mm %.2f deg; error (%.2f, %.2f) mm %.3f deg", c.name, 1e3*want.X, 1e3*want.Y,
			want.Yaw*180/math.Pi, 1e3*ex, 1e3*ey, eyaw)
		if math.Hypot(ex, ey) > math.Max(0.003, 0.01*dist) || math.Abs(eyaw) > 0.3 {
			t.Errorf("%s: error (%.2f, %.2f) mm %.3f deg", c.name, 1e3*ex, 1e3*ey, eyaw)
		}
	}
}
