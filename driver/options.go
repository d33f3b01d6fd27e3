package driver

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
)

// Options are the driver process's inputs (the contract with the supervisor, see doc.go).
type Options struct {
	// Config holds the ROS-style parameters (driver/config); Config.Limits() feeds the gate.
	Config config.Config
	// BoardIn carries the board's bytes: a pipe from the supervisor, or the port itself in tests. When it ends
	// (EOF or error) the board is gone and Run returns an error after a stop frame.
	BoardIn io.Reader
	// BoardOut is the port: motor and stop frames are written here. Run never closes it.
	BoardOut io.Writer
	// SocketPath is the control socket (default transport); "" serves no socket (tests of the loop alone).
	SocketPath string
	// SupervisorPID is reported in the state record (0 = none, e.g. run without a supervisor). When it is set,
	// scans are accepted only from that process's child named api.ReaderComm, the LiDAR reader it started
	// (scanauth.go); with 0 anyone on the socket may send them.
	SupervisorPID int
	// StateDir holds estop.json (the durable e-stop latch), runtime-params.json (runtime limits kept for the
	// drivers of one supervisor), plugged.json and the battery CSV logs (battery/YYYYMMDD.csv); default
	// $XDG_STATE_HOME/rosorin or $HOME/.local/state/rosorin.
	StateDir string
	// Log receives the driver's log lines; nil = slog.Default().
	Log *slog.Logger
	// Clock is the control loop's: its ticks, its deadline timer and every reading the gate decides on;
	// nil = clock.Real{}. The driver's other waits (shutdown bounds, the board writer's and the latch file's
	// latencies) use it too when it is a clock.Full, else clock.Real{} (a fake that drives the loop tick by
	// tick leaves those in real time).
	Clock clock.Timers
	// Heartbeat, if set, receives one heartbeat.Tick byte from the control loop when it starts and after every
	// tick, and heartbeat.FinalWord (the e-stop latch) after the final stop frames (heartbeat.go).
	// The supervisor's watchdog reads it to tell a hung driver from a live one. Write must never block (a
	// non-blocking pipe: childproc.Heartbeat); its errors are counted and otherwise ignored. nil = no
	// heartbeat.
	Heartbeat io.Writer
	// StartLatched, if not "", starts the driver with the e-stop latched with this reason (motion disabled
	// and enable refused until a reset), instead of merely disabled. The supervisor sets it for every driver
	// it restarts after one that did not exit cleanly (killed, crashed, hung, the board port lost) or that
	// exited latched: a restart must not clear an e-stop, nor let enable work without a reset after a crash.
	// The first start of a service is not latched.
	StartLatched string
	// Contact is the contact reflex's mode: "act" (latch the e-stop; "" is act), "log" (report only) or
	// "off" (judge/contact, docs/contact.md).
	Contact string
	// Access says who may do what on the control socket (api.Access: observe, drive, safety); nil =
	// api.DefaultAccess of this process's uid.
	Access *api.Access

	// wall is the clock of the waits outside the loop's decisions (Clock when it is a clock.Full, else
	// clock.Real{}; withDefaults).
	wall clock.Full

	// testContactSlow, TEST ONLY: every scan match takes at least this long (the slow-matcher tick test).
	testContactSlow time.Duration
}

// DefaultStateDir returns $XDG_STATE_HOME/rosorin or $HOME/.local/state/rosorin ("" if neither is known).
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "rosorin")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "rosorin")
	}
	return ""
}

func (o Options) withDefaults() Options {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.wall == nil {
		if f, ok := o.Clock.(clock.Full); ok {
			o.wall = f
		} else {
			o.wall = clock.Real{}
		}
	}
	if o.StateDir == "" {
		o.StateDir = DefaultStateDir()
	}
	return o
}
