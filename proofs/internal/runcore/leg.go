package runcore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// ErrEnded is what a hook returns to end a step early with its result already recorded (the floor proof's
// NOT RUN and ABORTED): Path.Run then returns nil.
var ErrEnded = errors.New("the step ended early with its result recorded")

// NewPath is the path of step s on run r, before it starts; cmdPeriod is the command rate.
func NewPath[R any](r *Run, s stoppath.Step[R], cmdPeriod time.Duration) Path {
	return Path{R: r, Title: s.Title(), Name: s.Spec.Name, Input: s.Spec.Input, Trigger: s.Spec.Trigger,
		KillsDriver: s.Spec.KillsDriver, StopsService: s.Spec.StopsService, Phase: "starting", CmdPeriod: cmdPeriod}
}

// Leg is what one proof puts into the step skeleton (Path.Run): its words and its hooks, in the order Run
// calls them. A nil hook does nothing (a nil Drive is Path.Drive); Hold and Judge are required.
type Leg struct {
	// Noun is what the proof calls a step in its lines: "path", "leg".
	Noun string
	// Going is printed as "[i/n] title: Going ..." when the drive to the trigger begins and names the phase
	// in a refused command's error; GoingPhase is the phase meanwhile, Until how long it drives.
	Going, GoingPhase string
	Until             time.Duration
	// HoldPhase is the phase from the trigger to the end of the hold.
	HoldPhase string
	// Verbose also writes "enable true" and the fault's application to the evidence log (the stand proof's).
	Verbose bool

	// Ready follows the driver's first answer st, before a latched e-stop is reset.
	Ready func(ctx context.Context, st target.State) error
	// Check runs after the reset, before the recordings and the publisher exist.
	Check func(ctx context.Context) error
	// Start is called as the drive to the trigger begins (the recordings, the publisher and the enable are
	// done).
	Start func()
	// Drive sends the path's command every command period until until on the run's drive loop (Path.Drive,
	// when nil); tolerate false (the drive to the trigger) ends it at a refused command.
	Drive func(ctx context.Context, until time.Time, tolerate bool) error
	// Driven follows the drive to the trigger, before the fault's AtTrigger.
	Driven func() error
	// Triggered follows the trigger.
	Triggered func()
	// Hold holds after the trigger and sets HoldEnd (HoldFor is the plain hold).
	Hold func(ctx context.Context) error
	// Held follows the hold and the end of a trigger that ran beside it.
	Held func(ctx context.Context) error
	// Judge turns the path's recordings into its result.
	Judge func(ctx context.Context) error
	// Release lets go of a take-over and judges the release.
	Release func(ctx context.Context) error
}

// Run is the step skeleton both proofs share: wait for the driver, reset an e-stop a path before left
// latched, start the IMU recordings (the board's from below when the path kills the driver), open the
// publisher on the path's input, enable, drive until Until, apply the fault, trigger through the spec (a
// service path marks the service down first), hold, wait for a trigger that ran beside, judge and let go of a
// take-over. A non-nil error means the path could not be judged; what the hooks recorded stays either way.
func (p *Path) Run(ctx context.Context, i, n int, l Leg) error {
	err := p.run(ctx, i, n, l)
	if errors.Is(err, ErrEnded) {
		return nil
	}
	return err
}

func (p *Path) run(ctx context.Context, i, n int, l Leg) error {
	r := p.R
	p.Phase = "waiting for the driver"
	st, err := r.WaitDriver(ctx, 0)
	if err != nil {
		return fmt.Errorf("no driver to prove: %v", err)
	}
	p.StartPid = st.Pids.Driver
	if l.Ready != nil {
		if err := l.Ready(ctx, st); err != nil {
			return err
		}
	}
	if st.Estop != "" {
		// Left by a path that could not reset (its own timeout): this path needs the wheels free.
		r.Ev.Logf("e-stop latched before the %s (%s): reset", l.Noun, st.Estop)
		if err := r.T.Reset(ctx); err != nil {
			return fmt.Errorf("reset before the %s: %v", l.Noun, err)
		}
	}
	if l.Check != nil {
		if err := l.Check(ctx); err != nil {
			return err
		}
	}

	p.Phase = "starting the IMU recording"
	if p.Drv, err = r.T.RecordIMU(ctx); err != nil {
		return fmt.Errorf("IMU stream: %v", err)
	}
	if p.KillsDriver {
		if p.Below, err = r.T.RecordBoardIMU(ctx); err != nil {
			return fmt.Errorf("board IMU from below the driver: %v", err)
		}
	}
	p.Phase = "opening the command publisher"
	if p.Pub, err = r.T.Publisher(ctx, p.Input); err != nil {
		return fmt.Errorf("command publisher: %v", err)
	}
	p.Phase = "enabling the wheels"
	if l.Verbose {
		r.Ev.Logf("enable true")
	}
	if err := r.T.Enable(ctx, true); err != nil {
		return fmt.Errorf("enable refused: %v", err)
	}

	r.Printf("[%d/%d] %s: %s ...", i+1, n, p.Title, l.Going)
	if l.Start != nil {
		l.Start()
	}
	if l.Drive == nil {
		l.Drive = p.Drive
	}
	p.Phase = l.GoingPhase
	if err := l.Drive(ctx, r.Clock.Now().Add(l.Until), false); err != nil {
		return fmt.Errorf("command refused while %s: %v", l.Going, err)
	}
	if l.Driven != nil {
		if err := l.Driven(); err != nil {
			return err
		}
	}
	if r.Fault != nil {
		if err := r.Fault.AtTrigger(ctx); err != nil {
			return fmt.Errorf("fault %s: %v", r.Fault.FaultName(), err)
		}
		if l.Verbose {
			r.Ev.Logf("fault %s applied", r.Fault.FaultName())
		}
	}

	p.Phase = "triggering " + p.Name
	p.Ctx = ctx
	if p.StopsService {
		r.ServiceDown = true
	}
	if err := p.Trigger(ctx, p); err != nil {
		return err
	}
	if l.Triggered != nil {
		l.Triggered()
	}
	p.Phase = l.HoldPhase
	if err := l.Hold(ctx); err != nil {
		return err
	}
	if err := p.WaitTrigger(ctx, p.Name); err != nil {
		return err
	}
	if l.Held != nil {
		if err := l.Held(ctx); err != nil {
			return err
		}
	}
	p.Phase = "judging"
	if err := l.Judge(ctx); err != nil {
		return err
	}
	if l.Release != nil {
		return l.Release(ctx)
	}
	return nil
}

// HoldFor is the plain hold: until d after the trigger (HoldEnd), in silence when the trigger was silence,
// else commanding through drive, whatever the driver answers.
func (p *Path) HoldFor(ctx context.Context, d time.Duration, drive func(ctx context.Context, until time.Time, tolerate bool) error) error {
	p.HoldEnd = p.Trig.Add(d)
	if p.Silent {
		return p.R.Wait(ctx, p.HoldEnd.Sub(p.R.Clock.Now()))
	}
	return drive(ctx, p.HoldEnd, true)
}
