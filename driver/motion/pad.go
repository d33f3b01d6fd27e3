package motion

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/kinematics"
)

// PadMode is the gamepad's driving mode.
type PadMode string

const (
	// PadLocked: the sticks do nothing. Every start, every e-stop and every disable ends here.
	PadLocked PadMode = "locked"
	// PadDrive: the sticks drive the robot (SourceGamepad, exempt from the scan gate).
	PadDrive PadMode = "drive"
)

// Lock reasons reported in PadResult.LockReason.
const (
	PadLockEStop       = "estop"
	PadLockDisabled    = "disabled"
	PadLockSilent      = "pad silent"
	PadLockDoublePress = "double press"
)

// PadConfig sets the gamepad logic. The button bits are in ../shared/reference/board-protocol.md.
type PadConfig struct {
	// ModeBit is the bit of the MODE button in the buttons word (pad_mode_bit, default 4 = 0x0010). The
	// firmware sources define no MODE bit, so it is a parameter.
	ModeBit uint
	// Deadzone: a stick deflection below this fraction reads zero (0.1, seed joy_to_twist).
	Deadzone float64
	// MaxLinear (m/s) and MaxAngular (rad/s) are full stick deflection; pass the gate's limits.
	MaxLinear, MaxAngular float64
	// ModeLockout: a MODE rising edge within this time of the last counted one is ignored (0.6 s): the pad
	// pulses the bit while it is held.
	ModeLockout time.Duration
	// ResetHold: holding MODE this long while e-stopped asks for a reset (2 s), once per hold.
	ResetHold time.Duration
	// ReleaseFrames: MODE counts as released after this many frames in a row without it (3).
	ReleaseFrames int
	// UnlockWindow: two counted MODE presses within this time toggle drive mode (1.5 s). With the 0.6 s
	// lockout the second press lands 0.6 to 1.5 s after the first: deliberate, not a bounce.
	UnlockWindow time.Duration
	// Silence: drive mode locks when no pad frame arrived for this long (2 s; the pad reports at 20 Hz).
	Silence time.Duration
}

// DefaultPadConfig returns MODE bit 4, deadzone 0.1, 0.2 m/s and 1.0 rad/s, lockout 0.6 s, hold 2 s,
// 3 release frames, unlock window 1.5 s, silence 2 s.
func DefaultPadConfig() PadConfig {
	return PadConfig{ModeBit: 4, Deadzone: 0.1, MaxLinear: 0.2, MaxAngular: 1.0,
		ModeLockout: 600 * time.Millisecond, ResetHold: 2 * time.Second, ReleaseFrames: 3,
		UnlockWindow: 1500 * time.Millisecond, Silence: 2 * time.Second}
}

// ErrBadPadConfig is wrapped by PadConfig.Validate.
var ErrBadPadConfig = errors.New("motion: bad gamepad config")

// Validate checks the config.
func (c PadConfig) Validate() error {
	switch {
	case c.ModeBit > 15:
		return fmt.Errorf("%w: pad_mode_bit %d; the buttons word has bits 0..15 (default 4)", ErrBadPadConfig, c.ModeBit)
	case !(c.Deadzone >= 0 && c.Deadzone < 1):
		return fmt.Errorf("%w: deadzone %v; use 0 <= deadzone < 1 (default 0.1)", ErrBadPadConfig, c.Deadzone)
	case !(c.MaxLinear >= 0) || !(c.MaxAngular >= 0) || !isFinite(c.MaxLinear) || !isFinite(c.MaxAngular):
		return fmt.Errorf("%w: max speeds %v m/s, %v rad/s; use finite values >= 0", ErrBadPadConfig, c.MaxLinear, c.MaxAngular)
	case c.ResetHold <= 0 || c.ReleaseFrames < 1 || c.UnlockWindow <= 0 || c.Silence <= 0 || c.ModeLockout < 0:
		return fmt.Errorf("%w: timings must be > 0 and release frames >= 1", ErrBadPadConfig)
	}
	return nil
}

// PadFrame is one gamepad report from the board (func 8, <HB4b>): buttons, hat and the raw stick axes.
type PadFrame struct {
	Buttons        uint16
	Hat            uint8
	LX, LY, RX, RY int8
}

// PadResult is what the runtime must do after a frame or a tick. Decisions only; the Pad does nothing itself.
type PadResult struct {
	// Trip, when non-empty, is the e-stop reason ("gamepad button 0x0100"): call Gate.Trip and write the stop
	// frame at once.
	Trip string
	// ResetRequest: MODE was held ResetHold while e-stopped; call Gate.Reset (motion stays disabled).
	ResetRequest bool
	// Drive, when non-nil, is a gamepad command: call Gate.SetCmd(*Drive, now, SourceGamepad). It is set on
	// every frame in drive mode (zero sticks give a zero command, which keeps the deadman fed) and once as
	// zero when drive mode ends, so the wheels stop now instead of at the deadman.
	Drive *kinematics.Twist
	// Mode is the mode after this call; ModeChanged says it changed in this call, LockReason why it locked.
	Mode        PadMode
	ModeChanged bool
	LockReason  string
	// ModeEvent: a MODE press was counted (rising edge outside the lockout).
	ModeEvent bool
}

// Pad is the gamepad logic of chapter 11 (read thread, lines ~870-900) plus a drive mode:
//
//   - Any button except MODE trips the e-stop on its FIRST frame, reason "gamepad button 0x%04x" (the other
//     bits). A two-frame confirmation was tried on 2026-09-29 and reverted: quick taps last one frame at the
//     pad's 20 Hz (8 owner taps, 0 trips). While latched, buttons do nothing more (the first reason stays).
//   - MODE presses are counted on rising edges with a 0.6 s lockout (the pad pulses the bit while held).
//   - Holding MODE 2 s while e-stopped requests a reset, once per hold; a hold ends after 3 frames without
//     MODE. The hold time counts only frames while e-stopped (the seed counted from the press even if the
//     e-stop came later, which could clear a fresh e-stop at once).
//   - Drive mode: two counted MODE presses within 1.5 s while motion is enabled and not latched unlock the
//     sticks; the same double press locks them again, as do any e-stop, a disable, and 2 s of pad silence.
//     Stick mapping (seed joy_to_twist): vx = ly max_lin, vy = -lx max_lin, wz = -rx max_ang, deadzone 0.1.
//
// Pure logic, one owner, time passed in. Call Feed for every frame and Tick every control tick.
type Pad struct {
	cfg  PadConfig
	mask uint16
	mode PadMode

	lastFrame time.Time
	hasFrame  bool

	prevMode  bool      // MODE bit in the previous frame
	downT     time.Time // last counted MODE press
	hasDown   bool
	pendingT  time.Time // first press of a possible double press
	pending   bool
	events    uint64
	offFrames int

	inHold    bool // a MODE hold episode is running (pressed, not yet released for ReleaseFrames)
	holdStart time.Time
	holdLatch bool // holdStart is set (first e-stopped frame of the episode)
	holdUsed  bool
}

// NewPad returns a locked pad.
func NewPad(cfg PadConfig) (*Pad, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Pad{cfg: cfg, mask: 1 << cfg.ModeBit, mode: PadLocked}, nil
}

// Mode returns the current mode.
func (p *Pad) Mode() PadMode { return p.mode }

// ModeEvents counts MODE presses counted since start.
func (p *Pad) ModeEvents() uint64 { return p.events }

// Lock drops to locked (the runtime calls it on every trip, whatever its source). It reports whether the
// mode changed; then the runtime should send a zero SourceGamepad command (Tick/Feed also do that for you).
func (p *Pad) Lock() (changed bool) {
	changed = p.mode != PadLocked
	p.mode = PadLocked
	p.pending = false
	return changed
}

// lock drops to locked inside a call and fills r.
func (p *Pad) lock(r *PadResult, why string) {
	if p.mode == PadLocked {
		return
	}
	p.mode, p.pending = PadLocked, false
	r.ModeChanged, r.LockReason = true, why
	r.Drive = &kinematics.Twist{}
}

// guard locks for e-stop, disable or silence; shared by Feed and Tick.
func (p *Pad) guard(r *PadResult, now time.Time, st Status) {
	switch {
	case st.EStop != "":
		p.lock(r, PadLockEStop)
	case !st.Enabled:
		p.lock(r, PadLockDisabled)
	case p.hasFrame && now.Sub(p.lastFrame) > p.cfg.Silence:
		p.lock(r, PadLockSilent)
	}
}

// Tick checks the locks that need no frame (e-stop, disable, pad silence). Call it every control tick.
func (p *Pad) Tick(now time.Time, st Status) PadResult {
	var r PadResult
	p.guard(&r, now, st)
	if p.hasFrame && now.Sub(p.lastFrame) > p.cfg.Silence {
		p.endHold() // no frames: MODE cannot be held
		p.prevMode = false
	}
	r.Mode = p.mode
	return r
}

func (p *Pad) endHold() {
	p.inHold, p.holdLatch, p.holdUsed, p.offFrames = false, false, false, 0
}

// Feed processes one gamepad frame received at now, with the gate's status at that moment.
func (p *Pad) Feed(f PadFrame, now time.Time, st Status) PadResult {
	var r PadResult
	p.guard(&r, now, st) // also catches silence before this frame (Tick may not have run)
	if p.hasFrame && now.Sub(p.lastFrame) > p.cfg.Silence {
		p.endHold()
		p.prevMode = false
	}
	p.lastFrame, p.hasFrame = now, true

	if other := f.Buttons &^ p.mask; other != 0 && st.EStop == "" {
		r.Trip = fmt.Sprintf("gamepad button 0x%04x", other)
		st.EStop = r.Trip // the runtime latches it now; decide the rest as latched
		p.lock(&r, PadLockEStop)
	}

	pressed := f.Buttons&p.mask != 0
	if pressed && !p.prevMode && (!p.hasDown || now.Sub(p.downT) > p.cfg.ModeLockout) {
		p.downT, p.hasDown = now, true
		p.events++
		r.ModeEvent = true
		p.modePress(&r, now, st)
	}
	p.prevMode = pressed

	if pressed {
		p.offFrames = 0
		p.inHold = true
		if st.EStop == "" {
			p.holdLatch = false // only time spent e-stopped counts
		} else if !p.holdLatch {
			p.holdStart, p.holdLatch = now, true
		} else if !p.holdUsed && now.Sub(p.holdStart) >= p.cfg.ResetHold {
			r.ResetRequest, p.holdUsed = true, true
		}
	} else if p.inHold {
		p.offFrames++
		if p.offFrames >= p.cfg.ReleaseFrames {
			p.endHold()
		}
	}

	if p.mode == PadDrive {
		t := JoyToTwist(f.LX, f.LY, f.RX, p.cfg.MaxLinear, p.cfg.MaxAngular, p.cfg.Deadzone)
		r.Drive = &t
	}
	r.Mode = p.mode
	return r
}

// modePress handles one counted MODE press: the double press toggles drive mode.
func (p *Pad) modePress(r *PadResult, now time.Time, st Status) {
	if !p.pending || now.Sub(p.pendingT) > p.cfg.UnlockWindow {
		p.pending, p.pendingT = true, now
		return
	}
	p.pending = false
	switch {
	case p.mode == PadDrive:
		p.lock(r, PadLockDoublePress)
	case st.Enabled && st.EStop == "":
		p.mode = PadDrive
		r.ModeChanged = true
	}
}

// JoyToTwist maps raw stick axes (int8, raw/127 gives -1..1) to a body velocity, as the seed's joy_to_twist
// (factory default layout): vx = ly max_lin, vy = -lx max_lin, wz = -rx max_ang. A deflection below deadzone
// reads zero; -128 reads -1.
func JoyToTwist(lx, ly, rx int8, maxLin, maxAng, deadzone float64) kinematics.Twist {
	ax := func(v int8) float64 {
		x := float64(v) / 127
		if math.Abs(x) < deadzone {
			return 0
		}
		return clamp(x, 1)
	}
	// +0 turns -0 (from -0 x max) into +0, so a centred stick is the exact zero command.
	return kinematics.Twist{VX: ax(ly) * maxLin, VY: -ax(lx)*maxLin + 0, WZ: -ax(rx)*maxAng + 0}
}
