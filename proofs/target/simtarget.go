package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/simrobot"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// SimConfig configures a simulated stand robot with the real driver started against it.
type SimConfig struct {
	// BaseBin is --base-bin: the rosorin-base binary to run ("" = basebin.Find's choice: built from the source
	// tree when it is at hand).
	BaseBin string
	Seed    int64
	// Fault is --sim-fault: NAME is applied at each path's trigger and cleared after the judge (the
	// negative control ignore-motor breaks only the stop, not the spin-up); NAME@start from the start;
	// NAME@DELAY is handed to the sim, which schedules it after its start.
	Fault string
	// World is the sim's world: "stand" (default, wheels in the air) or "floor" (the robot drives in Room).
	World string
	// Room names the floor world's room (sim.NamedRoom: "default" or "corridor"); "" is the default room.
	Room string
	// TruthPath, when set, is handed to the sim (sim.Config.TruthPath): its ground truth, for tests only.
	TruthPath string
	// NoLidarRespawn passes --no-lidar-respawn to rosorin-base run (the scan-gate check's negative control).
	NoLidarRespawn bool
	// Params are --sim-param's KEY=VALUE overrides of the driver's parameters (SimParamsYAML): a second
	// parameter file after the sim's own. The fault line names them: they are for negative controls.
	Params []string
	// Contact, when set, is rosorin-base run's --contact (act, log, off: the contact path's negative control).
	Contact string
	// BaseLog receives the supervisor's and the driver's output ("" = a file in the temporary folder,
	// deleted with it).
	BaseLog string
	// StartTimeout bounds the wait for the driver's first state (20 s).
	StartTimeout time.Duration
	Clock        clock.Clock
	Evidence     *evidence.Log
	// Out receives messages for a person (building rosorin-base ...).
	Out io.Writer
}

// SimTarget is a simulated stand robot (package sim, in this process) behind pseudo-terminals in a temporary
// folder, with `rosorin-base run` as a child process against it: the real supervisor, driver and LiDAR
// reader. Its control API is a LiveTarget's; the service is the child process.
type SimTarget struct {
	*LiveTarget
	cfg       SimConfig
	dir       string
	bin       basebin.Bin
	robot     *simrobot.Stack // the sim and the service process (internal/simrobot, the tests' starter too)
	sim       *sim.Sim
	log       *os.File
	fault     *sim.Fault // applied at each trigger; nil when none (or applied at start)
	faultNote string

	mu     sync.Mutex // guards base (StopService and Close may race with a Ctrl-C teardown)
	base   *simrobot.Service
	closed bool
}

// StartSim makes the temporary folder, starts the simulated stand robot and rosorin-base against it, and
// waits for the driver's first state, on internal/simrobot (the tests' robot starter) with its one robot
// configuration (simrobot.RobotConfig; --sim-param's overrides a second parameter file after it). On error
// everything started is torn down.
func StartSim(ctx context.Context, cfg SimConfig) (_ *SimTarget, err error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 20 * time.Second
	}
	st := &SimTarget{cfg: cfg}
	var startFaults []string
	switch f := strings.TrimSpace(cfg.Fault); {
	case f == "":
	case strings.HasSuffix(f, "@start"):
		name := strings.TrimSuffix(f, "@start")
		if _, err := sim.ParseFault(name); err != nil {
			return nil, fmt.Errorf("--sim-fault: %w", err)
		}
		startFaults, st.faultNote = append(startFaults, name), name+" from the start"
	case strings.Contains(f, "@"):
		if _, err := sim.ParseFault(f); err != nil {
			return nil, fmt.Errorf("--sim-fault: %w", err)
		}
		startFaults, st.faultNote = append(startFaults, f), f+" (scheduled by the sim)"
	default:
		pf, err := sim.ParseFault(f)
		if err != nil {
			return nil, fmt.Errorf("--sim-fault: %w", err)
		}
		st.fault, st.faultNote = &pf, f+" at each trigger, cleared after the judge"
	}

	params, err := SimParamsYAML(cfg.Params)
	if err != nil {
		return nil, err
	}
	if params != nil {
		note := "driver parameters " + strings.Join(cfg.Params, ", ") + " (--sim-param)"
		if st.faultNote != "" {
			note = st.faultNote + "; " + note
		}
		st.faultNote = note
	}

	if st.dir, err = os.MkdirTemp("", "stopproof-sim-"); err != nil {
		return nil, fmt.Errorf("temporary folder for the simulated robot: %w", err)
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	if st.bin, err = basebin.Find(ctx, cfg.BaseBin, st.dir, cfg.Out); err != nil {
		return nil, err
	}
	logPath := cfg.BaseLog
	if logPath == "" {
		logPath = filepath.Join(st.dir, "rosorin-base.log")
	}
	if st.log, err = os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, fmt.Errorf("rosorin-base log: %w", err)
	}
	room, err := sim.NamedRoom(cfg.Room)
	if err != nil {
		return nil, fmt.Errorf("--sim-room: %w", err)
	}
	var args []string
	if cfg.NoLidarRespawn {
		args = append(args, "--no-lidar-respawn")
	}
	if cfg.Contact != "" {
		args = append(args, "--contact", cfg.Contact)
	}
	started := func(svc *simrobot.Service) { // each start of the service, the first after the sim's line
		if st.robot == nil {
			cfg.Evidence.Logf("sim: folder %s, board %s, lidar %s, seed %d; %s", st.dir, svc.Device, svc.Lidar, cfg.Seed, st.bin)
		}
		pid := svc.Cmd.Process.Pid
		cfg.Evidence.Logf("rosorin-base run started, pid %d: %s", pid, strings.Join(svc.Cmd.Args[1:], " "))
		go func() {
			<-svc.Done()
			cfg.Evidence.Logf("rosorin-base run (pid %d) exited: %v", pid, svc.Err())
		}()
	}
	// The sim lives until Close, not until the proof's context: the teardown after Ctrl-C still needs it. The
	// service runs in its own process group: a Ctrl-C in the terminal reaches the proof, whose teardown
	// disables the wheels through the driver, and not the driver first. Pdeathsig: if the proof dies, the
	// service stops too.
	if st.robot, err = simrobot.Start(ctx, sim.Config{World: st.world(), Room: room, Seed: cfg.Seed, Faults: startFaults,
		TruthPath: cfg.TruthPath}, simrobot.Options{Bin: st.bin.Path, Dir: st.dir, Config: simrobot.RobotConfig, Overrides: params,
		Args: args, Log: st.log, ProcAttr: serviceProcAttr(), Started: started,
		Ready: simrobot.Answering, ReadyTimeout: cfg.StartTimeout}); err != nil {
		return nil, err
	}
	st.sim, st.base = st.robot.Sim, st.robot.Service
	st.robot.Client.CloseIdle() // the proof talks to the driver through its LiveTarget only
	lc := DefaultLiveConfig()
	lc.Socket, lc.Device, lc.Clock, lc.Evidence = st.robot.Socket, st.sim.BoardPath(), cfg.Clock, cfg.Evidence
	lc.ServiceStop, lc.ServiceStart = "", ""
	st.LiveTarget = NewLiveTarget(lc)
	return st, nil
}

// Dir is the temporary folder.
func (s *SimTarget) Dir() string { return s.dir }

// Sim is the simulated robot (for tests).
func (s *SimTarget) Sim() *sim.Sim { return s.sim }

// Describe names the simulated robot.
func (s *SimTarget) Describe() string {
	where := "stand robot"
	if s.world() == "floor" {
		room := s.cfg.Room
		if room == "" {
			room = "default"
		}
		where = "floor robot in the " + room + " room"
	}
	return fmt.Sprintf("simulated %s (seed %d) in %s, driven by %s run", where, s.cfg.Seed, s.dir, s.bin.Path)
}

func (s *SimTarget) world() string {
	if s.cfg.World == "" {
		return "stand"
	}
	return s.cfg.World
}

// Home puts the simulated robot back on its mark (Homer): the sim's world moves the body to its start pose
// at rest (sim.Sim.Home, a teleport the IMU does not see). Wheels still running down after a stop (their
// targets zero) are waited for, up to 5 s; wheels commanded are refused at once (sim.ErrHomeMoving: stop
// them first), as is a mark covered by the obstacle fault's box (sim.ErrHomeBlocked).
func (s *SimTarget) Home(ctx context.Context) error {
	deadline := s.cfg.Clock.Now().Add(5 * time.Second)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := s.sim.Home()
		if err == nil {
			return nil
		}
		if !errors.Is(err, sim.ErrHomeMoving) || s.sim.Truth().TargetRPS != ([4]float64{}) || !s.cfg.Clock.Now().Before(deadline) {
			return fmt.Errorf("simulated robot: %w", err)
		}
		if err := s.cfg.Clock.Sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
}

// DriverBinary is the rosorin-base binary the simulated robot runs, its version and how it was chosen.
func (s *SimTarget) DriverBinary() basebin.Bin { return s.bin }

func (s *SimTarget) startBase() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("simulated robot closed")
	}
	if err := s.robot.Relaunch(); err != nil {
		return err
	}
	s.base = s.robot.Service
	return nil
}

// stopBase sends SIGINT (systemd's KillSignal) and waits for the exit, SIGKILL to the process group after
// wait.
func (s *SimTarget) stopBase(wait time.Duration) error {
	s.mu.Lock()
	base := s.base
	s.base = nil
	s.mu.Unlock()
	if base == nil {
		return nil
	}
	return base.StopWithin(wait)
}

// StopService is systemctl stop: SIGINT to the supervisor, wait for it to exit, then the unit's
// ExecStopPost, `rosorin-base stop-motors --wait 5s`.
func (s *SimTarget) StopService(ctx context.Context) error {
	err := s.stopBase(10 * time.Second)
	out, perr := exec.CommandContext(ctx, s.bin.Path, "stop-motors", "--device", s.sim.BoardPath(), "--wait", "5s").CombinedOutput()
	s.cfg.Evidence.Logf("ExecStopPost stop-motors: %v %s", perr, bytes.TrimSpace(out))
	if err != nil {
		return err
	}
	if perr != nil {
		return fmt.Errorf("stop-motors: %v: %s", perr, bytes.TrimSpace(out))
	}
	return nil
}

// StartService starts rosorin-base run again.
func (s *SimTarget) StartService(ctx context.Context) error {
	s.mu.Lock()
	running := s.base != nil
	s.mu.Unlock()
	if running {
		return nil
	}
	return s.startBase()
}

// PressButton presses Cross on the simulated pad for one frame (a quick tap at the pad's 20 Hz), and takes
// the trigger time from the driver's gamepad stream: the first frame carrying the bit. If none shows within
// 3 s, the time of the sim call is used and the answer says so.
func (s *SimTarget) PressButton(ctx context.Context, prompt func(string)) (time.Time, string, error) {
	var pressed time.Time
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	at, how, err := waitButton(wctx, s.Client(), s.cfg.Clock, func(b uint16) bool { return b&board.BtnCross != 0 }, func() error {
		pressed = s.cfg.Clock.Now()
		return s.sim.HoldButton(board.BtnCross, 1)
	})
	if err == nil {
		return at, how, nil
	}
	if pressed.IsZero() || ctx.Err() != nil {
		return time.Time{}, "", err
	}
	return pressed, fmt.Sprintf("the sim's press call (no frame with 0x%04x in the driver's gamepad stream: %v)", board.BtnCross, err), nil
}

// AtTrigger applies the fault.
func (s *SimTarget) AtTrigger(ctx context.Context) error {
	if s.fault == nil {
		return nil
	}
	return s.sim.Apply(s.fault.Text)
}

// Clear switches a switch fault off again (ignore-motor, hang, lidar-silent, pad, stall); one-shot faults
// have nothing to clear.
func (s *SimTarget) Clear(ctx context.Context) error {
	if s.fault == nil || !s.fault.On {
		return nil
	}
	if s.fault.Kind.IsSwitch() { // a fault with a state to clear (the sim's fault table says which)
		return s.sim.Apply(string(s.fault.Kind) + "=off")
	}
	return nil
}

// FaultName describes the fault and when it applies ("" when none).
func (s *SimTarget) FaultName() string { return s.faultNote }

// Close stops rosorin-base (SIGINT, as systemd would), the sim, and removes the temporary folder. Always
// call it; it is idempotent.
func (s *SimTarget) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := s.stopBase(10 * time.Second)
	if s.LiveTarget != nil {
		s.LiveTarget.Close()
	}
	if s.robot != nil {
		if cerr := s.robot.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if s.log != nil {
		s.log.Close()
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
	return err
}

var (
	_ Target       = (*SimTarget)(nil)
	_ Faulter      = (*SimTarget)(nil)
	_ DriverBinary = (*SimTarget)(nil)
)
