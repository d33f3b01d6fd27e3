package envelope

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

type cmPolygon struct {
	Type                string    `yaml:"type"`
	Points              []float64 `yaml:"points"`
	ActionType          string    `yaml:"action_type"`
	MaxPoints           int       `yaml:"max_points"`
	FootprintTopic      string    `yaml:"footprint_topic"`
	TimeBeforeCollision float64   `yaml:"time_before_collision"`
	SimulationTimeStep  float64   `yaml:"simulation_time_step"`
}

type cmFile struct {
	CollisionMonitor struct {
		Params map[string]yaml.Node `yaml:"ros__parameters"`
	} `yaml:"collision_monitor"`
}

func parseCM(t *testing.T, b []byte) (polygons []string, byName map[string]cmPolygon) {
	t.Helper()
	var f cmFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("the YAML does not parse: %v\n%s", err, b)
	}
	p := f.CollisionMonitor.Params
	if p == nil {
		t.Fatalf("no collision_monitor.ros__parameters:\n%s", b)
	}
	n := p["polygons"]
	if err := n.Decode(&polygons); err != nil {
		t.Fatal(err)
	}
	byName = map[string]cmPolygon{}
	for _, name := range polygons {
		var poly cmPolygon
		n := p[name]
		if err := n.Decode(&poly); err != nil {
			t.Fatalf("polygon %s: %v", name, err)
		}
		byName[name] = poly
	}
	return polygons, byName
}

// extent is the polygon's reach along +x, -x, +y, -y.
func extent(pts []float64) (front, rear, left, right float64) {
	for i := 0; i+1 < len(pts); i += 2 {
		front, rear = max(front, pts[i]), max(rear, -pts[i])
		left, right = max(left, pts[i+1]), max(right, -pts[i+1])
	}
	return
}

func TestCollisionMonitorYAML(t *testing.T) {
	fwd, err := New(synth("estop", "forward", 0.15, 1.0, 0.005, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	left, err := New(synth("estop", "left", 0.2, 0.8, 0.005, 0.02))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                     string
		envs                     []*Envelope
		front, rear, left, right float64 // growth per side
		approach                 float64
	}{
		{"forward only", []*Envelope{fwd}, fwd.AtMax().BoundDistance, 0, 0, 0, fwd.AtMax().BoundTime},
		{"forward and strafe left", []*Envelope{fwd, left}, fwd.AtMax().BoundDistance, 0, left.AtMax().BoundDistance, 0,
			max(fwd.AtMax().BoundTime, left.AtMax().BoundTime)},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Source: "reports/campaigns/floor-ci-80\nnot a key: 1", Footprint: testFootprint, Envelopes: c.envs}
			b, err := cfg.CollisionMonitorYAML()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "# source: reports/campaigns/floor-ci-80 not a key: 1\n") {
				t.Errorf("no one-line source in the header:\n%s", b)
			}
			names, polys := parseCM(t, b)
			if len(names) != 2 {
				t.Fatalf("polygons %v", names)
			}
			stop, ok := polys["EnvelopeStop"]
			if !ok || stop.Type != "polygon" || stop.ActionType != "stop" || len(stop.Points) != 8 || stop.MaxPoints != 1 {
				t.Fatalf("stop polygon %+v", stop)
			}
			f, r, l, rt := extent(stop.Points)
			fp := testFootprint
			for _, x := range [][3]float64{{f, fp.Front, c.front}, {r, fp.Rear, c.rear}, {l, fp.Left, c.left}, {rt, fp.Right, c.right}} {
				if !near(x[0], x[1]+x[2], 1e-9) {
					t.Errorf("stop zone side %v, want footprint %v + bounded distance %v\n%s", x[0], x[1], x[2], b)
				}
			}
			ap := polys["EnvelopeApproach"]
			if ap.ActionType != "approach" || ap.FootprintTopic == "" || !near(ap.TimeBeforeCollision, c.approach, 1e-12) || !(ap.SimulationTimeStep > 0) {
				t.Errorf("approach polygon %+v, want time_before_collision %v", ap, c.approach)
			}
			t.Logf("\n%s", b)
		})
	}
}

func TestConfigRefusals(t *testing.T) {
	fwd, _ := New(synth("estop", "forward", 0.15, 1.0, 0.005, 0.01))
	fwd2, _ := New(synth("deadman", "forward", 0.15, 1.0, 0.005, 0.01))
	turn, _ := New(synth("estop", "turn", 0.15, 1.0, 0.005, 0.01))
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no envelope", Config{Footprint: testFootprint}, "no envelope"},
		{"turn", Config{Footprint: testFootprint, Envelopes: []*Envelope{turn}}, "turn"},
		{"two forward", Config{Footprint: testFootprint, Envelopes: []*Envelope{fwd, fwd2}}, "two envelopes"},
		{"no footprint", Config{Envelopes: []*Envelope{fwd}}, "footprint"},
		{"nil", Config{Footprint: testFootprint, Envelopes: []*Envelope{nil}}, "nil"},
		{"negative max_points", Config{Footprint: testFootprint, Envelopes: []*Envelope{fwd}, MaxPoints: -1}, "max_points"},
	} {
		if _, err := c.cfg.CollisionMonitorYAML(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestVelocitySmoother(t *testing.T) {
	fwd, _ := New(synth("estop", "forward", 0.15, 1.0, 0.005, 0))
	back, _ := New(synth("estop", "back", 0.15, 0.9, 0.005, 0))
	left, _ := New(synth("estop", "left", 0.15, 0.7, 0.005, 0))
	cfg := Config{Source: "ci", Envelopes: []*Envelope{fwd, back, left}, Margin: 0.2, AngularDecel: -3.2}
	d, err := cfg.SmootherDecel()
	if err != nil {
		t.Fatal(err)
	}
	// x: the weaker of forward (1.0) and back (0.9); y: left's 0.7; both with 20 % off, negative.
	want := [3]float64{-0.8 * 0.9, -0.8 * 0.7, -3.2}
	for i := range want {
		if !near(d[i], want[i], 1e-9) {
			t.Errorf("max_decel %v, want %v", d, want)
		}
	}
	b, err := cfg.VelocitySmootherYAML()
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		VS struct {
			P struct {
				MaxDecel []float64 `yaml:"max_decel"`
			} `yaml:"ros__parameters"`
		} `yaml:"velocity_smoother"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil || len(f.VS.P.MaxDecel) != 3 {
		t.Fatalf("%v %+v\n%s", err, f, b)
	}
	for i := range want {
		if !near(f.VS.P.MaxDecel[i], want[i], 1e-9) || !(f.VS.P.MaxDecel[i] < 0) {
			t.Errorf("parsed max_decel %v, want %v", f.VS.P.MaxDecel, want)
		}
	}
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no y axis", Config{Envelopes: []*Envelope{fwd}, AngularDecel: -3}, "y axis"},
		{"no x axis", Config{Envelopes: []*Envelope{left}, AngularDecel: -3}, "x axis"},
		{"positive theta", Config{Envelopes: []*Envelope{fwd, left}, AngularDecel: 3}, "theta"},
		{"margin 1", Config{Envelopes: []*Envelope{fwd, left}, AngularDecel: -3, Margin: 1}, "margin"},
		{"negative margin", Config{Envelopes: []*Envelope{fwd, left}, AngularDecel: -3, Margin: -0.1}, "margin"},
	} {
		if _, err := c.cfg.SmootherDecel(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
