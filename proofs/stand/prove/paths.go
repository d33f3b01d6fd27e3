package prove

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rosorin/rosorin/proofs/harness"
)

// Path is one way of stopping the wheels.
type Path string

// The stop paths of chapter 19, plus the gamepad button the seed could never time.
const (
	Deadman  Path = "deadman"  // silence: no command for cmd_timeout
	Estop    Path = "estop"    // the e-stop request (the seed's estop topic)
	Disable  Path = "disable"  // enable false
	ScanLoss Path = "scanloss" // SIGKILL of the LiDAR reader: the scan gate, then the release
	Kill     Path = "kill"     // SIGKILL of the driver
	Service  Path = "service"  // the whole service stopped, then started again
	Gamepad  Path = "gamepad"  // a gamepad button other than MODE
)

// AllPaths lists every path in the order the proof runs them.
var AllPaths = []Path{Deadman, Estop, Disable, ScanLoss, Kill, Service, Gamepad}

// Motion is the drive command a path spins the wheels with.
type Motion struct {
	Name  string // "fwd 0.2", as the seed's result lines name it
	Twist harness.Twist
}

// The three motions of chapter 19's table: 0.2 m/s (the floor limit), 0.35 m/s (max_linear since 2026-10-01)
// and a 1.0 rad/s turn (the weakest vibration, just above the threshold).
var (
	Fwd02  = Motion{"fwd 0.2", harness.Twist{VX: 0.2}}
	Fwd035 = Motion{"fwd 0.35", harness.Twist{VX: 0.35}}
	Rot10  = Motion{"rot 1.0", harness.Twist{WZ: 1.0}}
	// Motions are the table's columns, in order.
	Motions = []Motion{Fwd02, Fwd035, Rot10}
)

// Step is one run of a path at one motion.
type Step struct {
	Path   Path
	Motion Motion
}

// Title is the progress line's name: "estop fwd 0.35".
func (s Step) Title() string { return string(s.Path) + " " + s.Motion.Name }

// Name is the result line's name, after the seed's ("estop topic, fwd 0.2"). The e-stop here is the control
// API's request, the driver's stand-in for the topic.
func (s Step) Name() string { return label(s.Path) + ", " + s.Motion.Name }

func label(p Path) string {
	switch p {
	case Deadman:
		return "deadman (silence)"
	case Estop:
		return "estop request"
	case Disable:
		return "enable false"
	case ScanLoss:
		return "LiDAR silent (scan gate)"
	case Kill:
		return "driver kill"
	case Service:
		return "driver service"
	case Gamepad:
		return "gamepad button"
	}
	return string(p)
}

// releaseName is the scan-loss path's second result line.
const releaseName = "LiDAR back: wheels released by themselves"

// ParsePaths reads a comma-separated list of paths ("deadman,estop,kill", or "all") into the steps to run,
// in the seed's order whatever the order given: deadman, estop and disable at fwd 0.2, then at fwd 0.35, then
// at rot 1.0; then scanloss and kill at fwd 0.35, service at fwd 0.35 and gamepad at fwd 0.2.
func ParsePaths(list string) ([]Step, error) {
	want := map[Path]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(strings.ToLower(f))
		switch {
		case f == "":
			continue
		case f == "all":
			for _, p := range AllPaths {
				want[p] = true
			}
		case slices.Contains(AllPaths, Path(f)):
			want[Path(f)] = true
		default:
			return nil, fmt.Errorf("unknown stop path %q: use a comma-separated list of %s (or all)", f, pathList())
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("no stop path given: use a comma-separated list of %s (or all)", pathList())
	}
	var steps []Step
	for _, m := range Motions {
		for _, p := range []Path{Deadman, Estop, Disable} {
			if want[p] {
				steps = append(steps, Step{p, m})
			}
		}
	}
	for _, s := range []Step{{ScanLoss, Fwd035}, {Kill, Fwd035}, {Service, Fwd035}, {Gamepad, Fwd02}} {
		if want[s.Path] {
			steps = append(steps, s)
		}
	}
	return steps, nil
}

func pathList() string {
	s := make([]string, len(AllPaths))
	for i, p := range AllPaths {
		s[i] = string(p)
	}
	return strings.Join(s, ",")
}

// killsDriver reports whether the path leaves no driver to publish the IMU.
func (p Path) killsDriver() bool { return p == Kill || p == Service }
