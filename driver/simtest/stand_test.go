// The chapter 11 stand harness (its seven checks, run by hand on the robot on its stand) against the sim: the
// stand suite (driver/standtest), which driver/stand_test.go also runs against the in-process driver. Here it
// judges motion from the sim's record of received frames and from its truth (wheel targets and speeds).

package simtest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/sim"
)

func TestStand(t *testing.T) {
	standtest.Run(t, func(t *testing.T) standtest.Bench {
		s := sharedStack(t)
		return &simBench{s: s, logOff: s.log.Len(), reader: s.state(t).PIDs.LidarReader}
	})
}

// simBench is the stand suite's view of the shared stack: the sim is the board, the LiDAR and the gamepad,
// the supervisor's log carries the driver's.
type simBench struct {
	s      *stack
	logOff int // the log from here on is the test's
	reader int
}

var (
	_ standtest.Bench = (*simBench)(nil)
	_ standtest.Truth = (*simBench)(nil)
)

func (g *simBench) Client() *api.Client      { return g.s.cl }
func (g *simBench) Count() int               { return g.s.sim.RxSeq() }
func (g *simBench) Wheels() standtest.Wheels { return wheelsOf(g.s.sim.Truth()) }

// WheelRPS and BodyVelocity are the sim's own kinematics (the suite compares the driver's against them).
func (g *simBench) WheelRPS(v [3]float64) [4]float64       { return sim.WheelRPS(v) }
func (g *simBench) BodyVelocity(rps [4]float64) [3]float64 { return sim.BodyVelocity(rps) }

// Frames gives the motor frames from seq from on; a frame that is not a good one is failed by the stack's own
// check when the test ends (prepare).
func (g *simBench) Frames(from int) []standtest.Frame {
	rx, _ := g.s.sim.ReceivedSince(from)
	var out []standtest.Frame
	for _, r := range rx {
		if rps, err := standtest.MotorSpeeds(r.Func, r.Payload, 0); err == nil {
			out = append(out, standtest.Frame{Index: r.Seq, At: r.T, RPS: rps, Raw: frameBytes(r)})
		}
	}
	return out
}

func (g *simBench) Scans(t testing.TB, on bool) time.Time {
	must(t, g.s.sim.LidarSilent(!on))
	return time.Time{} // the sim's LiDAR sends; the suite times the hold from the driver's last scan
}

func (g *simBench) PadConnected(t testing.TB, on bool)    { must(t, g.s.sim.PadConnected(on)) }
func (g *simBench) PadPress(t testing.TB, buttons uint16) { must(t, g.s.sim.HoldButton(buttons, 1)) }
func (g *simBench) PadStick(t testing.TB, ly int8)        { must(t, g.s.sim.PadSticks(0, ly, 0, 0)) }
func (g *simBench) LogCount(sub string) int               { return strings.Count(g.s.log.From(g.logOff), sub) }

func (g *simBench) Config() standtest.Config {
	return standtest.Config{Tick: tick, Slack: slack, DeadmanRuns: 2, EStopCycles: 2, ReaderPID: g.reader}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("sim: %v", err)
	}
}
