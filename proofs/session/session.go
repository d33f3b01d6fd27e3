package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/target"
)

// Config says what a proof run talks to and where its evidence goes: what every subcommand of
// stopproof sets up from its flags.
type Config struct {
	// Kind names the evidence log ("stop_proof_stand"); EvidenceDir is its folder, created if missing.
	Kind, EvidenceDir string
	// CommandLine is the log's first line ("stopproof devel: stopproof prove --sim estop").
	CommandLine string
	// Sim starts a simulated stand robot with the real driver (Simulated); otherwise Live is reached.
	Sim bool
	// Simulated configures the simulated robot: BaseBin, Seed, Fault, NoLidarRespawn (the clock, the
	// evidence, the driver's log and the output are the session's).
	Simulated target.SimConfig
	// Live configures the running driver: Socket, Device, ServiceStop, ServiceStart (clock and evidence are
	// the session's).
	Live target.LiveConfig
	// Out receives messages for a person.
	Out io.Writer
	// Record writes the run's MCAP recording beside the evidence log (proofrec.PathBeside; docs/reports.md).
	Record bool
}

// Session is one proof run's setting: a context that Ctrl-C or SIGTERM cancels (the proofs' teardown still
// disables the wheels, on its own context), the evidence log and the target.
type Session struct {
	Ctx      context.Context
	Evidence *evidence.Log
	Target   target.Target
	// Recording is the run's MCAP recording (nil without Config.Record).
	Recording *proofrec.Writer
	out       io.Writer
	stop      context.CancelFunc
}

// Open creates the evidence log and the target. An error means nothing was started (and nothing
// sent); it says what to do.
func Open(cfg Config) (*Session, error) {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Simulated.Fault != "" && !cfg.Sim {
		return nil, errors.New("--sim-fault needs --sim: faults are handed to the simulated robot")
	}
	s := &Session{out: cfg.Out}
	s.Ctx, s.stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	clk := clock.Real{}
	ev, err := evidence.Create(cfg.EvidenceDir, evidence.Name(cfg.Kind, clk.Now()), clk)
	if err != nil {
		s.stop()
		return nil, err
	}
	s.Evidence = ev
	if cfg.Record {
		if err := s.startRecording(cfg); err != nil {
			s.Close()
			return nil, err
		}
	}
	ev.Logf("%s", cfg.CommandLine)
	if !cfg.Sim {
		lc := cfg.Live
		lc.Clock, lc.Evidence = clk, ev
		s.Target = target.NewLiveTarget(lc)
		return s, nil
	}
	world := cfg.Simulated.World
	if world == "" {
		world = "stand"
	}
	fmt.Fprintf(cfg.Out, "starting the simulated %s robot and rosorin-base ...\n", world)
	sc := cfg.Simulated
	// The driver's own log goes beside the evidence log: a failing run needs both.
	sc.BaseLog = strings.TrimSuffix(ev.Path(), ".log") + ".rosorin-base.log"
	sc.Clock, sc.Evidence, sc.Out = clk, ev, cfg.Out
	st, err := target.StartSim(s.Ctx, sc)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("simulated robot: %w", err)
	}
	s.Target = st
	return s, nil
}

// Close tears the target down (the simulated robot and its processes), names the evidence log and closes it.
func (s *Session) Close() {
	if s.Target != nil {
		if err := s.Target.Close(); err != nil {
			s.Evidence.Logf("target close: %v", err)
		}
	}
	s.closeRecording()
	if s.Evidence != nil {
		if p := s.Evidence.Path(); p != "" {
			fmt.Fprintf(s.out, "evidence: %s\n", p)
		}
		s.Evidence.Close()
	}
	s.stop()
}
