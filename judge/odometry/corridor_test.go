package odometry

import (
	"math"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/sim"
)

// roomBeams is the noise-free scan of room from the robot pose (x, y, yaw), as the driver delivers it (400
// bins, bin i at i x 0.9 degrees in the LiDAR frame after the flip), converted to base-frame beams.
func roomBeams(room *sim.Room, x, y, yaw float64) []Beam {
	ranges := make([]float32, 400)
	inc := 2 * math.Pi / 400
	ox, oy := x+DefaultMount.X*math.Cos(yaw), y+DefaultMount.X*math.Sin(yaw)
	for i := range ranges {
		d, _, ok := room.Ray([2]float64{ox, oy}, yaw+DefaultMount.Yaw+float64(i)*inc)
		ranges[i] = float32(math.Inf(1))
		if ok && d <= 8 {
			ranges[i] = float32(d)
		}
	}
	return BaseBeams(ranges, 0, inc, 0.12, 8, DefaultMount)
}

func withBox(t *testing.T, extra string) *sim.Room {
	t.Helper()
	r, err := sim.ParseRoom([]byte(sim.DefaultRoomYAML + extra))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBaseBeamsMount(t *testing.T) {
	ranges := make([]float32, 400)
	for i := range ranges {
		ranges[i] = float32(math.Inf(1))
	}
	ranges[200] = 1.0 // LiDAR frame 180 degrees: the robot's forward
	ranges[100] = 1.0 // LiDAR 90 degrees: the robot's right
	b := BaseBeams(ranges, 0, 2*math.Pi/400, 0.12, 8, DefaultMount)
	if !b[200].Valid || math.Abs(b[200].X-1.048) > 1e-9 || math.Abs(b[200].Y) > 1e-9 {
		t.Errorf("forward bin: %+v, want a return at x 1.048 m", b[200])
	}
	if !b[100].Valid || b[100].Y > -0.99 || math.Abs(b[100].Bearing+math.Pi/2) > 0.06 {
		t.Errorf("right bin: %+v, want y -1 m at bearing -90 deg", b[100])
	}
	if b[0].Valid {
		t.Errorf("blind rear bin valid: %+v", b[0])
	}
}

func TestCheckCorridor(t *testing.T) {
	p := DefaultParams()
	room := sim.DefaultRoom()
	clear := roomBeams(room, 0, 0, 0)
	if c := CheckCorridor(clear, 0, p); !c.OK || c.Nearest < 3 || c.Share < 0.95 {
		t.Errorf("default room ahead: %+v, want clear (3.5 m free) with every beam valid", c)
	}
	if c := CheckCorridor(clear, math.Pi/2, p); !c.OK {
		t.Errorf("default room to the left: %+v", c)
	}
	// The negative controls: a box inside the corridor, the blind rear, and a view with no returns.
	box := roomBeams(withBox(t, "  - {center: [0.9, 0.1], size: [0.2, 0.2], yaw: 0}\n"), 0, 0, 0)
	if c := CheckCorridor(box, 0, p); c.OK || math.Abs(c.Nearest-0.8) > 0.01 || !strings.Contains(c.Reason, "nearest 0.80 m") {
		t.Errorf("box 0.8 m ahead: %+v", c)
	}
	beside := roomBeams(withBox(t, "  - {center: [0.7, 0.5], size: [0.2, 0.2], yaw: 0}\n"), 0, 0, 0)
	if c := CheckCorridor(beside, 0, p); !c.OK {
		t.Errorf("box 0.4 m to the side of the corridor refused it: %+v", c)
	}
	if c := CheckCorridor(clear, math.Pi, p); c.OK || c.Share > 0 {
		t.Errorf("the blind rear passed as clear: %+v", c)
	}
	empty := make([]Beam, len(clear))
	for i, b := range clear {
		empty[i] = Beam{Bearing: b.Bearing, Range: math.NaN(), X: math.NaN(), Y: math.NaN()}
	}
	if c := CheckCorridor(empty, 0, p); c.OK || !strings.Contains(c.Reason, "valid beams 0 %") {
		t.Errorf("no returns passed as clear: %+v", c)
	}
}

func TestGuard(t *testing.T) {
	p := DefaultParams()
	near := roomBeams(withBox(t, "  - {center: [0.5, 0], size: [0.2, 0.2], yaw: 0}\n"), 0, 0, 0)
	if d, hit := Guard(near, 0, false, p); !hit || math.Abs(d-0.4) > 0.01 {
		t.Errorf("box 0.4 m ahead: nearest %.3f, hit %v", d, hit)
	}
	if _, hit := Guard(near, math.Pi/2, false, p); hit {
		t.Error("box ahead stopped a strafe to the left")
	}
	far := roomBeams(withBox(t, "  - {center: [0.7, 0], size: [0.2, 0.2], yaw: 0}\n"), 0, 0, 0)
	if d, hit := Guard(far, 0, false, p); hit {
		t.Errorf("box 0.6 m ahead fired the 0.45 m guard (nearest %.3f)", d)
	}
	if _, hit := Guard(roomBeams(sim.DefaultRoom(), 0, 0, 0), 0, true, p); hit {
		t.Error("turn in the open fired the guard")
	}
	post := roomBeams(withBox(t, "  - {center: [0.1, 0.3], size: [0.1, 0.1], yaw: 0}\n"), 0, 0, 0)
	if _, hit := Guard(post, 0, true, p); !hit {
		t.Error("post 0.25 m beside a turning robot did not fire the guard")
	}
}

func TestCoverage(t *testing.T) {
	b := Coverage(roomBeams(sim.DefaultRoom(), 0, 0, 0), 30)
	if len(b) != 12 || b[0].Deg != -180 || b[0].Total != 0 || b[6].Deg != 0 || b[6].Valid != b[6].Total || b[6].Total < 30 {
		t.Errorf("coverage: %+v", b)
	}
	if math.Abs(b[6].Nearest-3.5) > 0.05 {
		t.Errorf("nearest ahead %.3f m, want the wall 3.5 m ahead", b[6].Nearest)
	}
}
