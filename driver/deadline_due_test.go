package driver

import (
	"os"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
)

// TestLoopDeadlineDueBeforeItsFiring: the deadman's instant has come but the timer's firing is not handled yet
// (the loop was busy; a scan arrival is picked first): that scan must not re-arm the timer past the deadman and
// so leave the stop to the next tick. The stop frame goes out when the scan is handled.
func TestLoopDeadlineDueBeforeItsFiring(t *testing.T) {
	g := newLoopRig(t)
	peer := api.Peer{PID: os.Getpid()}
	g.r.Scan(peer, &api.Scan{}, true)
	g.r.Enable(peer, true)
	for range 10 {
		g.r.Scan(peer, &api.Scan{}, true)
		g.r.CmdVel(peer, motion.InputCmdVel, api.Twist{VX: 0.1}, false)
		g.tick()
	}
	g.clk.timer.mu.Lock()
	at := g.clk.timer.armed
	g.clk.timer.mu.Unlock()
	n := len(g.frames())
	g.clk.advance(at.Sub(g.clk.Now()) + time.Microsecond) // due, not delivered
	g.r.Scan(peer, &api.Scan{}, true)
	if f := g.frames(); len(f) != n+1 || f[n] != [4]float64{} {
		t.Fatalf("a scan handled 1 µs after the deadman's instant: %d new frames, want the stop frame", len(f)-n)
	}
}
