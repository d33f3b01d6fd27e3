package still

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Frame is one motor frame the board was told, as the body velocity it commands.
type Frame struct {
	T  float64 // seconds on the shared timeline
	VX float64 // m/s, forward positive
	VY float64 // m/s, left positive
	WZ float64 // rad/s, counterclockwise (turning left) positive
}

// Valid reports whether every field is a finite number.
func (f Frame) Valid() bool { return finite(f.T) && finite(f.VX) && finite(f.VY) && finite(f.WZ) }

// Moving reports whether any component is above eps in magnitude.
func (f Frame) Moving(eps float64) bool {
	return math.Abs(f.VX) > eps || math.Abs(f.VY) > eps || math.Abs(f.WZ) > eps
}

// Peak is the largest component magnitude (m/s and rad/s compared as numbers, as the epsilon is).
func (f Frame) Peak() float64 { return max(math.Abs(f.VX), math.Abs(f.VY), math.Abs(f.WZ)) }

// String names the motion in words: "0.20 m/s forward", "0.10 m/s right, 0.50 rad/s turning left", "zero".
// Components below 0.0005 are left out.
func (f Frame) String() string {
	var parts []string
	add := func(v float64, unit, pos, neg string) {
		if math.Abs(v) < 0.0005 && !math.IsNaN(v) {
			return
		}
		dir := pos
		if v < 0 {
			dir = neg
		}
		parts = append(parts, fmt.Sprintf("%.2f %s %s", math.Abs(v), unit, dir))
	}
	add(f.VX, "m/s", "forward", "back")
	add(f.VY, "m/s", "left", "right")
	add(f.WZ, "rad/s", "turning left", "turning right")
	if len(parts) == 0 {
		return "zero"
	}
	return strings.Join(parts, ", ")
}

// CleanFrames returns the valid frames sorted by time (stable) and how many were dropped as non-finite. It does
// not modify its argument.
func CleanFrames(frames []Frame) ([]Frame, int) {
	out := make([]Frame, 0, len(frames))
	for _, f := range frames {
		if f.Valid() {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out, len(frames) - len(out)
}

// HeldAt returns the index in clean (sorted) frames of the last frame at or before t, or -1 when none is: the
// frame the board holds at t.
func HeldAt(clean []Frame, t float64) int {
	return sort.Search(len(clean), func(i int) bool { return clean[i].T > t }) - 1
}

// LongestSilence is the longest stretch in [from, to] without a frame, counting from the held frame (or from)
// to the first frame after from and from the last frame to to, and where it starts.
func LongestSilence(clean []Frame, from, to float64) (gap, at float64) {
	last := from
	if i := HeldAt(clean, from); i >= 0 {
		last = clean[i].T
	}
	for _, f := range clean {
		if f.T <= from {
			continue
		}
		if f.T > to {
			break
		}
		if f.T-last > gap {
			gap, at = f.T-last, last
		}
		last = f.T
	}
	if to-last > gap {
		gap, at = to-last, last
	}
	return gap, at
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
