package envelope

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Footprint is the robot body as a rectangle in the base frame (REP 103: x forward, y left), by the distance
// of each side from the base frame's origin, m, each > 0. Only rectangles: growing a side by a stopping
// distance is then exact, which the exported stop zone must be.
type Footprint struct {
	Front, Rear, Left, Right float64
}

// Rectangle is a length × width footprint centred on the base frame's origin.
func Rectangle(length, width float64) Footprint {
	return Footprint{Front: length / 2, Rear: length / 2, Left: width / 2, Right: width / 2}
}

// Points are the corners, counter-clockwise from front-left: [x0, y0, x1, y1, ...].
func (f Footprint) Points() []float64 {
	return []float64{f.Front, f.Left, -f.Rear, f.Left, -f.Rear, -f.Right, f.Front, -f.Right}
}

func (f Footprint) check() error {
	for _, x := range []float64{f.Front, f.Rear, f.Left, f.Right} {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("footprint %+v: every side must be finite and > 0 m from the base origin", f)
		}
	}
	return nil
}

// Config is what the exported configuration comes from.
type Config struct {
	// Source names the campaign the numbers came from (its folder or ID); it is printed in the header.
	Source string
	// Footprint is the robot body (the caller's; the toolkit does not know the body's size).
	Footprint Footprint
	// Envelopes, at most one per direction among forward, back, left, right: each grows its side of the
	// footprint by its bounded stopping distance at its fastest tested speed (forward grows Front, back Rear,
	// left Left, right Right). A side with no envelope is not grown. turn is refused: its distance is an angle.
	Envelopes []*Envelope
	// MaxPoints is Humble's max_points for both polygons: more returns than this inside a zone trigger it.
	// 0 means 1 (two returns stop: one stray return does not; the setting of the robot's collision monitor
	// in the seed, ../shared/seeds/001).
	MaxPoints int
	// Margin is the velocity smoother's margin on the measured braking, in [0, 1): max_decel is
	// -(1 - Margin) × the weakest fitted deceleration of the axis. 0 means the measured braking itself.
	Margin float64
	// AngularDecel is the smoother's theta entry (rad/s², < 0), not measured by an envelope: the caller's.
	AngularDecel float64
}

// side returns the footprint side a direction grows.
func side(dir string) (int, error) {
	switch dir {
	case "forward":
		return 0, nil
	case "back":
		return 1, nil
	case "left":
		return 2, nil
	case "right":
		return 3, nil
	}
	return 0, fmt.Errorf("direction %q: only forward, back, left and right grow a side of the footprint (turn's stop is an angle)", dir)
}

func (c Config) byAxis() ([4]*Envelope, error) {
	var by [4]*Envelope
	if len(c.Envelopes) == 0 {
		return by, fmt.Errorf("no envelope: the configuration comes from at least one")
	}
	for _, e := range c.Envelopes {
		if e == nil {
			return by, fmt.Errorf("a nil envelope")
		}
		i, err := side(e.Direction)
		if err != nil {
			return by, err
		}
		if by[i] != nil {
			return by, fmt.Errorf("two envelopes for %s (%s and %s): give the one the zone is for", e.Direction, by[i].Path, e.Path)
		}
		by[i] = e
	}
	return by, nil
}

// StopZone is the footprint grown, per direction with an envelope, by the bounded stopping distance at that
// envelope's fastest tested speed (the measured bound, not the fit).
func (c Config) StopZone() (Footprint, error) {
	if err := c.Footprint.check(); err != nil {
		return Footprint{}, err
	}
	by, err := c.byAxis()
	if err != nil {
		return Footprint{}, err
	}
	z := c.Footprint
	grow := []*float64{&z.Front, &z.Rear, &z.Left, &z.Right}
	for i, e := range by {
		if e != nil {
			*grow[i] += e.AtMax().BoundDistance
		}
	}
	return z, nil
}

// ApproachTime is time_before_collision: the longest bounded stop time at the fastest tested speed among the
// envelopes.
func (c Config) ApproachTime() (float64, error) {
	by, err := c.byAxis()
	if err != nil {
		return 0, err
	}
	t := 0.0
	for _, e := range by {
		if e != nil {
			t = math.Max(t, e.AtMax().BoundTime)
		}
	}
	return t, nil
}

// SmootherDecel is the velocity smoother's max_decel, [x, y, theta], in Nav2's convention (negative numbers,
// m/s² and rad/s²). The rule: no harder than the measured braking, per axis -(1 - Margin) × the weakest of
// the bounded fits' decelerations among the axis's envelopes (forward and back for x, left and right for
// y). The bounded fit's deceleration is the weaker of the two fits on data whose bounds lie above the runs. An
// axis without an envelope is an error: nothing measured says how hard it may brake.
func (c Config) SmootherDecel() ([3]float64, error) {
	var out [3]float64
	if !(c.Margin >= 0 && c.Margin < 1) {
		return out, fmt.Errorf("margin %v: must be in [0, 1)", c.Margin)
	}
	if !(c.AngularDecel < 0) || math.IsInf(c.AngularDecel, 0) {
		return out, fmt.Errorf("angular deceleration %v rad/s²: give the smoother's theta entry, finite and < 0 (Nav2's max_decel is negative); the envelope does not measure turning", c.AngularDecel)
	}
	by, err := c.byAxis()
	if err != nil {
		return out, err
	}
	for axis, pair := range [2][2]*Envelope{{by[0], by[1]}, {by[2], by[3]}} {
		a := math.Inf(1)
		for _, e := range pair {
			if e != nil {
				if math.IsInf(e.Bound.Decel, 1) {
					return out, fmt.Errorf("%s %s: no braking term was measured (%s): the smoother's deceleration limit cannot be derived from this envelope", e.Path, e.Direction, e.Bound.Clamped)
				}
				a = math.Min(a, e.Bound.Decel)
			}
		}
		if math.IsInf(a, 1) {
			return out, fmt.Errorf("no envelope for the %s axis (%s): measure it before the smoother may brake it", [2]string{"x", "y"}[axis], [2]string{"forward or back", "left or right"}[axis])
		}
		out[axis] = -(1 - c.Margin) * a
	}
	out[2] = c.AngularDecel
	return out, nil
}

// CollisionMonitorYAML is a Nav2 Humble parameters file for the collision_monitor node: a stop polygon (the
// StopZone) and an approach polygon (the footprint, time_before_collision = ApproachTime), with a header of
// the numbers they came from and the Source.
//
// The parameter names and types are Humble's (nav2_collision_monitor 1.1; docs.nav2.org "Collision Monitor"
// configuration guide and tutorial, and the Humble branch's polygon.cpp): points is a flat list of doubles
// [x0, y0, x1, y1, ...] of at least 4 vertices (Iron and later take a string "[[x, y], ...]" instead);
// max_points (Iron's min_points = max_points + 1); action_type "stop" and "approach"; time_before_collision
// and simulation_time_step for approach. Humble's approach polygon takes its shape from footprint_topic
// (the local costmap's published footprint), not from points: the header says which footprint the costmap
// must publish.
func (c Config) CollisionMonitorYAML() ([]byte, error) {
	zone, err := c.StopZone()
	if err != nil {
		return nil, err
	}
	tbc, err := c.ApproachTime()
	if err != nil {
		return nil, err
	}
	if !(tbc > 0) {
		return nil, fmt.Errorf("bounded stop time %v s at the fastest speed: time_before_collision must be > 0", tbc)
	}
	maxPoints := c.MaxPoints
	if maxPoints == 0 {
		maxPoints = 1
	}
	if maxPoints < 0 {
		return nil, fmt.Errorf("max_points %d: must be >= 0", maxPoints)
	}
	by, _ := c.byAxis()
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p("# Nav2 Humble collision_monitor parameters from a measured stopping envelope (rosorin judge/envelope).")
	p("# source: %s", oneLine(c.Source))
	p("# footprint (m from base origin): front %s, rear %s, left %s, right %s", short(c.Footprint.Front), short(c.Footprint.Rear), short(c.Footprint.Left), short(c.Footprint.Right))
	for i, e := range by {
		if e == nil {
			continue
		}
		m := e.AtMax()
		p("# %s %s: fastest tested %s m/s, bounded stopping distance %s m, bounded stop time %s s; fit t_r %s s, a %s m/s², RMS %s m; grows %s",
			oneLine(e.Path), e.Direction, short(m.V), short(m.BoundDistance), short(m.BoundTime), short(e.Bound.ResponseTime), short(e.Bound.Decel), short(e.Bound.RMS), [4]string{"front", "rear", "left", "right"}[i])
	}
	p("# stop zone = footprint grown by those distances; time_before_collision = the longest bounded stop time.")
	p("# Humble's approach polygon reads the footprint from footprint_topic: publish the footprint above there.")
	p("collision_monitor:")
	p("  ros__parameters:")
	p("    base_frame_id: \"base_footprint\"")
	p("    odom_frame_id: \"odom\"")
	p("    cmd_vel_in_topic: \"cmd_vel_smoothed\"")
	p("    cmd_vel_out_topic: \"cmd_vel\"")
	p("    transform_tolerance: 0.2")
	p("    source_timeout: 0.5")
	p("    stop_pub_timeout: 2.0")
	p("    polygons: [\"EnvelopeStop\", \"EnvelopeApproach\"]")
	p("    EnvelopeStop:")
	p("      type: \"polygon\"")
	p("      points: %s", list(zone.Points()))
	p("      action_type: \"stop\"")
	p("      max_points: %d", maxPoints)
	p("      visualize: True")
	p("      polygon_pub_topic: \"polygon_stop\"")
	p("    EnvelopeApproach:")
	p("      type: \"polygon\"")
	p("      action_type: \"approach\"")
	p("      footprint_topic: \"/local_costmap/published_footprint\"")
	p("      time_before_collision: %s", num(tbc))
	p("      simulation_time_step: 0.02")
	p("      max_points: %d", maxPoints)
	p("      visualize: False")
	p("    observation_sources: [\"scan\"]")
	p("    scan:")
	p("      type: \"scan\"")
	p("      topic: \"/scan\"")
	return []byte(b.String()), nil
}

// VelocitySmootherYAML is the velocity_smoother node's max_decel from SmootherDecel, with its rule and source
// in a header (only that parameter: the rest of the smoother's file is the owner's).
func (c Config) VelocitySmootherYAML() ([]byte, error) {
	d, err := c.SmootherDecel()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Nav2 velocity_smoother max_decel [x, y, theta], negative as Nav2 takes it, no harder than the measured braking:\n")
	fmt.Fprintf(&b, "# each axis -(1 - %s) x the weakest bounded-fit deceleration of its envelopes; theta is the caller's (not measured).\n", num(c.Margin))
	fmt.Fprintf(&b, "# source: %s\n", oneLine(c.Source))
	for _, e := range c.Envelopes {
		fmt.Fprintf(&b, "# %s %s: a %s m/s², t_r %s s over %s..%s m/s\n", oneLine(e.Path), e.Direction, num(e.Bound.Decel), num(e.Bound.ResponseTime), num(e.MinSpeed()), num(e.MaxSpeed()))
	}
	fmt.Fprintf(&b, "velocity_smoother:\n  ros__parameters:\n    max_decel: %s\n", list(d[:]))
	return []byte(b.String()), nil
}

func num(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") { // a YAML double, not an int, for ROS's typed parameters
		s += ".0"
	}
	return s
}

// short is a header number: six significant digits (the parameters themselves are exact).
func short(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

func list(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = num(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// oneLine keeps a caller's string inside its comment line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r < ' ' {
			return ' '
		}
		return r
	}, s)
}
