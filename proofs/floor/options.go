package floor

import (
	"fmt"
	"io"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/stoppath"
)

// Options configure a floor proof run. Start from DefaultOptions.
type Options struct {
	// Leg is how long a leg drives before its trigger (the seed: 1.5 s).
	Leg time.Duration
	// Hold is how long the leg goes on after the trigger (commands keep coming, silence for the deadman):
	// the 0.8 s rule, the still window and a window of its own after it.
	Hold time.Duration
	// HoldStill is a hold path's still window: how long the robot must stay still after the event with the
	// publisher commanding (the stand proof's 2 s).
	HoldStill time.Duration
	// Params are the judges' rules (chapter 19's numbers).
	Params odometry.Params
	// PathTimeout is each leg's hard timeout; StateTimeout the wait for the first driver state (the seed:
	// 5 s); DriverBack the wait for a new driver after a kill or a service restart; TeardownTimeout the
	// teardown's bound.
	PathTimeout, StateTimeout, DriverBack, TeardownTimeout time.Duration
	// OdoWait is how long a leg waits for a fresh odometry estimate before it refuses to drive.
	OdoWait time.Duration
	// CmdPeriod is the command rate (20 Hz).
	CmdPeriod time.Duration
	// ReleaseWait bounds a release check (the take-over's, after the operator lets go): the robot must be
	// measured moving again within it; then the wheels are disabled at once, so it travels little.
	ReleaseWait time.Duration
	// Paths is the table the steps were parsed from (Paths by default).
	Paths stoppath.Table[Rule]
	Clock clock.Clock
	// Out receives the lines a person reads; Evidence everything (may be nil).
	Out      io.Writer
	Evidence *evidence.Log
}

// DefaultOptions are the seed's settings.
func DefaultOptions() Options {
	return Options{
		Leg: 1500 * time.Millisecond, Hold: 2500 * time.Millisecond, HoldStill: 2 * time.Second, Params: odometry.DefaultParams(),
		PathTimeout: 60 * time.Second, StateTimeout: 5 * time.Second, DriverBack: 20 * time.Second,
		TeardownTimeout: 30 * time.Second, OdoWait: 3 * time.Second, CmdPeriod: 50 * time.Millisecond,
		ReleaseWait: 2 * time.Second, Paths: Paths, Clock: clock.Real{}, Out: io.Discard,
	}
}

// Validate says what is wrong with o, in words for the command line.
func (o Options) Validate() error {
	if err := o.Params.Validate(); err != nil {
		return err
	}
	if o.Leg < time.Duration((o.Params.Window+0.5)*float64(time.Second)) {
		return fmt.Errorf("--leg %v is too short: the speed before the trigger is measured over %.1f s, after about 0.5 s of spin-up",
			o.Leg, o.Params.Window)
	}
	if need := time.Duration((o.Params.FailAfter + 2*o.Params.Window + 0.3) * float64(time.Second)); o.Hold < need {
		return fmt.Errorf("--hold %v is too short: it must cover the %.1f s rule, the still window and one after it; use at least %v",
			o.Hold, o.Params.FailAfter, need)
	}
	for _, d := range []struct {
		n string
		v time.Duration
	}{{"PathTimeout", o.PathTimeout}, {"StateTimeout", o.StateTimeout}, {"DriverBack", o.DriverBack},
		{"TeardownTimeout", o.TeardownTimeout}, {"OdoWait", o.OdoWait}, {"CmdPeriod", o.CmdPeriod},
		{"ReleaseWait", o.ReleaseWait}, {"HoldStill", o.HoldStill}} {
		if d.v <= 0 {
			return fmt.Errorf("floor: %s must be positive", d.n)
		}
	}
	if o.Clock == nil {
		return fmt.Errorf("floor: no clock")
	}
	return nil
}
