package scanmatch

import (
	"fmt"
	"math"
	"testing"

	"github.com/rosorin/rosorin/sim"
)

// roomWith returns the default room plus one box (centre x, y, size w, h in m).
func roomWith(t testing.TB, x, y, w, h float64) *sim.Room {
	r, err := sim.ParseRoom([]byte(sim.DefaultRoomYAML + fmt.Sprintf("  - {center: [%g, %g], size: [%g, %g], yaw: 0}\n", x, y, w, h)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestChangingScene: what the floor proof's negative controls put in front of the robot must not bend its
// odometry. A box that appears 0.7 m ahead during a 0.2 m/s leg, and a person-sized box crossing the view
// at 0.5 m/s beside the robot's path: the leg still reads within 1 %, the heading within 0.2 degree.
func TestChangingScene(t *testing.T) {
	start := sim.DefaultRoom().Start
	plain := sim.NewLidarModel(81, sim.DefaultRoom())
	appear := sim.NewLidarModel(82, roomWith(t, 1.0, 0, 0.4, 0.4))
	walkers := map[int]*sim.LidarModel{}
	walker := func(ts float64) *sim.LidarModel { // a 0.3 m box walking along y = 0.6 from x = 2.5 toward -0.5
		k := int(ts / 0.05) // the walker moves in 2.5 cm steps
		if m, ok := walkers[k]; ok {
			return m
		}
		m := sim.NewLidarModel(int64(83+k), roomWith(t, 2.5-0.5*float64(k)*0.05, 0.6, 0.3, 0.3))
		walkers[k] = m
		return m
	}
	for _, c := range []struct {
		name  string
		scene func(ts float64) *sim.LidarModel
	}{
		{"box appears 0.7 m ahead at 1.0 s", func(ts float64) *sim.LidarModel {
			if ts < 1.0 {
				return plain
			}
			return appear
		}},
		{"person crosses at 0.5 m/s", walker},
	} {
		w := newWorld(80, sim.DefaultRoom(), leg(start, 0.3, 1, 0, 0.2, 0, 1, 1.5))
		w.scene = c.scene
		checkLeg(t, c.name, w, 30, 0.01, 0.2*math.Pi/180)
	}
}
