package sim

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"

	"gopkg.in/yaml.v3"
)

// Segment is one wall piece in world coordinates (m).
type Segment struct{ A, B [2]float64 }

// Room is the floor world: wall segments (walls and box outlines flattened), the robot's start pose and
// the footprint radius used for collisions. It is immutable after construction and safe to share.
type Room struct {
	Name        string
	Start       [3]float64 // x m, y m, yaw rad
	RobotRadius float64    // m, circular footprint for collisions
	Segments    []Segment
}

// DefaultRobotRadius: the floor proof's corridor uses "robot half width ~0.15" (chapter 19).
const DefaultRobotRadius = 0.15

// roomFile is the YAML shape documented in docs/sim.md.
type roomFile struct {
	Name        string        `yaml:"name"`
	Start       []float64     `yaml:"start"` // x, y, yaw in degrees
	RobotRadius float64       `yaml:"robot_radius"`
	Walls       [][][]float64 `yaml:"walls"` // polylines of [x, y]
	Boxes       []struct {
		Center []float64 `yaml:"center"`
		Size   []float64 `yaml:"size"`
		Yaw    float64   `yaml:"yaw"` // degrees
	} `yaml:"boxes"`
}

// LoadRoom reads a room YAML file (format in docs/sim.md).
func LoadRoom(path string) (*Room, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read room file: %w", err)
	}
	r, err := ParseRoom(b)
	if err != nil {
		return nil, fmt.Errorf("room file %s: %w", path, err)
	}
	return r, nil
}

// ParseRoom parses the YAML room format. Unknown keys are an error so a typo does not silently
// produce an empty room.
func ParseRoom(b []byte) (*Room, error) {
	var f roomFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse YAML: %w", err)
	}
	r := &Room{Name: f.Name, RobotRadius: f.RobotRadius}
	if r.RobotRadius == 0 {
		r.RobotRadius = DefaultRobotRadius
	}
	if !finite(r.RobotRadius) || r.RobotRadius < 0 || r.RobotRadius > 2 {
		return nil, fmt.Errorf("robot_radius %v out of range (0, 2] m", f.RobotRadius)
	}
	switch len(f.Start) {
	case 0:
	case 2, 3:
		copy(r.Start[:], f.Start)
		r.Start[2] = wrapAngle(r.Start[2] * math.Pi / 180)
	default:
		return nil, fmt.Errorf("start needs [x, y] or [x, y, yaw_deg], got %d numbers", len(f.Start))
	}
	for i, pl := range f.Walls {
		if len(pl) < 2 {
			return nil, fmt.Errorf("walls[%d]: a polyline needs at least 2 points, got %d", i, len(pl))
		}
		for j := range pl {
			if len(pl[j]) != 2 {
				return nil, fmt.Errorf("walls[%d][%d]: a point is [x, y], got %d numbers", i, j, len(pl[j]))
			}
		}
		for j := 1; j < len(pl); j++ {
			r.Segments = append(r.Segments, Segment{[2]float64{pl[j-1][0], pl[j-1][1]}, [2]float64{pl[j][0], pl[j][1]}})
		}
	}
	for i, bx := range f.Boxes {
		if len(bx.Center) != 2 || len(bx.Size) != 2 {
			return nil, fmt.Errorf("boxes[%d]: center [x, y] and size [w, h] are required", i)
		}
		if !(bx.Size[0] > 0 && bx.Size[1] > 0) {
			return nil, fmt.Errorf("boxes[%d]: size must be positive, got %v", i, bx.Size)
		}
		r.Segments = append(r.Segments, boxSegments(bx.Center[0], bx.Center[1], bx.Size[0], bx.Size[1], bx.Yaw*math.Pi/180)...)
	}
	return r, r.validate()
}

func (r *Room) validate() error {
	if len(r.Segments) == 0 {
		return errors.New("no walls or boxes: a room needs at least one segment")
	}
	for i, s := range r.Segments {
		if !finite(s.A[0]) || !finite(s.A[1]) || !finite(s.B[0]) || !finite(s.B[1]) {
			return fmt.Errorf("segment %d has a non-finite coordinate", i)
		}
	}
	for _, v := range r.Start {
		if !finite(v) {
			return errors.New("start pose is not finite")
		}
	}
	if r.Collides(r.Start[0], r.Start[1]) {
		return fmt.Errorf("start pose (%.2f, %.2f) overlaps a wall or box (robot radius %.2f m); move it",
			r.Start[0], r.Start[1], r.RobotRadius)
	}
	return nil
}

func boxSegments(cx, cy, w, h, yaw float64) []Segment {
	c, s := math.Cos(yaw), math.Sin(yaw)
	corner := func(dx, dy float64) [2]float64 { return [2]float64{cx + dx*c - dy*s, cy + dx*s + dy*c} }
	p := [4][2]float64{corner(-w/2, -h/2), corner(w/2, -h/2), corner(w/2, h/2), corner(-w/2, h/2)}
	return []Segment{{p[0], p[1]}, {p[1], p[2]}, {p[2], p[3]}, {p[3], p[0]}}
}

// DefaultRoom is a 5 m x 4 m living room with a cabinet, a chair and a post. The robot starts 1.5 m
// from the back wall facing +x with 3.5 m free ahead; every bearing in the LiDAR's field of view hits
// a wall well inside 8 m, which is what gives the robot's measured ~61 % valid bins.
func DefaultRoom() *Room {
	r, err := ParseRoom([]byte(DefaultRoomYAML))
	if err != nil {
		panic("sim: default room invalid: " + err.Error()) // a programming error caught by the tests
	}
	return r
}

// DefaultRoomYAML is the default room in the file format (also an example for readers of docs/sim.md).
const DefaultRoomYAML = `name: default living room
start: [0, 0, 0]
robot_radius: 0.15
walls:
  - [[-1.5, -2.0], [3.5, -2.0], [3.5, 2.0], [-1.5, 2.0], [-1.5, -2.0]]
boxes:
  - {center: [1.6, 1.55], size: [1.2, 0.45], yaw: 0}   # cabinet along the left wall
  - {center: [2.3, -1.1], size: [0.45, 0.45], yaw: 20} # chair
  - {center: [-0.8, 1.3], size: [0.12, 0.12], yaw: 0}  # post
`

// CorridorRoomYAML is a corridor 1.4 m wide and 20 m long with the robot in its middle facing along it: no
// end within the LiDAR's 8 m, so a scan cannot tell where along it the robot is (the LiDAR odometry is
// degenerate along its axis). The floor proof's negative control: it must refuse to judge a leg along it.
const CorridorRoomYAML = `name: corridor
start: [0, 0, 0]
robot_radius: 0.15
walls:
  - [[-10, -0.7], [10, -0.7], [10, 0.7], [-10, 0.7], [-10, -0.7]]
`

// RoomNames are the rooms NamedRoom knows.
var RoomNames = []string{"default", "corridor"}

// NamedRoom returns a built-in room: "default" (or "") the living room, "corridor" CorridorRoomYAML.
func NamedRoom(name string) (*Room, error) {
	switch name {
	case "", "default":
		return DefaultRoom(), nil
	case "corridor":
		return ParseRoom([]byte(CorridorRoomYAML))
	}
	return nil, fmt.Errorf("unknown room %q: use one of %v", name, RoomNames)
}

// Ray returns the distance from o along the direction angle a (rad, world frame) to the nearest
// segment, and |cos| of the incidence angle (1 = head-on). ok is false when nothing is hit.
func (r *Room) Ray(o [2]float64, a float64) (dist, cosInc float64, ok bool) {
	dx, dy := math.Cos(a), math.Sin(a)
	best := math.Inf(1)
	for _, s := range r.Segments {
		ex, ey := s.B[0]-s.A[0], s.B[1]-s.A[1]
		den := dx*ey - dy*ex
		if math.Abs(den) < 1e-12 {
			continue // parallel
		}
		wx, wy := s.A[0]-o[0], s.A[1]-o[1]
		t := (wx*ey - wy*ex) / den
		u := (wx*dy - wy*dx) / den
		if t > 1e-9 && u >= 0 && u <= 1 && t < best {
			best = t
			l := math.Hypot(ex, ey)
			cosInc = math.Abs(dx*ey-dy*ex) / l
		}
	}
	if math.IsInf(best, 1) {
		return 0, 0, false
	}
	return best, cosInc, true
}

// Collides reports whether the robot footprint centred at (x, y) touches any segment.
func (r *Room) Collides(x, y float64) bool {
	for _, s := range r.Segments {
		if pointSegmentDist(x, y, s) < r.RobotRadius {
			return true
		}
	}
	return false
}

func pointSegmentDist(x, y float64, s Segment) float64 {
	ex, ey := s.B[0]-s.A[0], s.B[1]-s.A[1]
	l2 := ex*ex + ey*ey
	u := 0.0
	if l2 > 0 {
		u = ((x-s.A[0])*ex + (y-s.A[1])*ey) / l2
		u = math.Max(0, math.Min(1, u))
	}
	return math.Hypot(x-(s.A[0]+u*ex), y-(s.A[1]+u*ey))
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
