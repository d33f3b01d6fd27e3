package motion

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
)

const padPeriod = 50 * time.Millisecond // the pad reports at about 20 Hz

const modeMask = 0x0010 // default pad_mode_bit 4

func newPad(t *testing.T) *Pad {
	t.Helper()
	p, err := NewPad(DefaultPadConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	running = Status{Enabled: true}
	stopped = Status{}
)

func TestPadTripsOnFirstFrame(t *testing.T) {
	// Every firmware button bit, each in a single frame (a real quick tap lasts one frame at 20 Hz).
	buttons := []uint16{0x0001, 0x0002, 0x0004, 0x0008, 0x0020, 0x0040, 0x0100, 0x0200, 0x0800, 0x1000, 0x4000, 0x8000}
	for _, b := range buttons {
		t.Run(fmt.Sprintf("0x%04x", b), func(t *testing.T) {
			p := newPad(t)
			for i := 0; i < 10; i++ {
				if r := p.Feed(PadFrame{}, t0.Add(time.Duration(i)*padPeriod), running); r.Trip != "" {
					t.Fatalf("idle frame tripped: %q", r.Trip)
				}
			}
			r := p.Feed(PadFrame{Buttons: b}, at(0.5), running)
			if want := fmt.Sprintf("gamepad button 0x%04x", b); r.Trip != want {
				t.Fatalf("trip %q, want %q", r.Trip, want)
			}
		})
	}
	cases := []struct {
		name    string
		modeBit uint
		buttons uint16
		st      Status
		want    string
	}{
		{"MODE alone does not trip", 4, modeMask, running, ""},
		{"MODE plus CROSS reports only CROSS", 4, modeMask | 0x0100, running, "gamepad button 0x0100"},
		{"two buttons at once", 4, 0x0101, running, "gamepad button 0x0101"},
		{"trips while disabled too", 4, 0x0100, stopped, "gamepad button 0x0100"},
		{"already latched: the first reason stays, no new trip", 4, 0x0100, Status{EStop: "estop topic"}, ""},
		{"mode bit 5: 0x0010 is a button", 5, 0x0010, running, "gamepad button 0x0010"},
		{"mode bit 5: 0x0020 is MODE", 5, 0x0020, running, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultPadConfig()
			cfg.ModeBit = c.modeBit
			p, err := NewPad(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if r := p.Feed(PadFrame{Buttons: c.buttons}, t0, c.st); r.Trip != c.want {
				t.Fatalf("trip %q, want %q", r.Trip, c.want)
			}
		})
	}
}

// holdScript feeds MODE frames at 20 Hz from s0 to s1 (dropping the bit on frames where drop(i) is true, as a
// pulsing pad does) and returns the times of reset requests. st(s) gives the gate status; a reset request
// clears the latch as the runtime would.
func holdScript(p *Pad, s0, s1 float64, drop func(i int) bool, st *Status) []float64 {
	var resets []float64
	for i := 0; float64(i)*0.05+s0 <= s1+1e-9; i++ {
		s := s0 + float64(i)*0.05
		var b uint16 = modeMask
		if drop != nil && drop(i) {
			b = 0
		}
		r := p.Feed(PadFrame{Buttons: b}, at(s), *st)
		if r.ResetRequest {
			resets = append(resets, s)
			st.EStop = "" // the runtime calls Gate.Reset
		}
	}
	return resets
}

func TestPadModeHoldResets(t *testing.T) {
	t.Run("2 s hold while e-stopped resets once", func(t *testing.T) {
		p := newPad(t)
		st := Status{EStop: "gamepad button 0x0100"}
		resets := holdScript(p, 0, 6, nil, &st)
		if len(resets) != 1 || !near(resets[0], 2.0, 1e-9) {
			t.Fatalf("resets at %v, want once at 2.0 s", resets)
		}
	})
	t.Run("1.9 s hold does nothing", func(t *testing.T) {
		p := newPad(t)
		st := Status{EStop: "x"}
		if r := holdScript(p, 0, 1.9, nil, &st); len(r) != 0 {
			t.Fatalf("resets %v", r)
		}
		for i := 0; i < 3; i++ {
			p.Feed(PadFrame{}, at(1.95+float64(i)*0.05), st)
		}
		if r := holdScript(p, 2.1, 3.9, nil, &st); len(r) != 0 {
			t.Fatalf("a released hold kept counting: resets %v", r)
		}
	})
	t.Run("pulsing bit (2 of every 5 frames dropped) is still one hold", func(t *testing.T) {
		p := newPad(t)
		st := Status{EStop: "x"}
		resets := holdScript(p, 0, 6, func(i int) bool { return i%5 == 3 || i%5 == 4 }, &st)
		if len(resets) != 1 || resets[0] < 2.0 || resets[0] > 2.2 {
			t.Fatalf("resets at %v, want once at about 2 s", resets)
		}
	})
	t.Run("tripped again during the same hold: no second reset", func(t *testing.T) {
		p := newPad(t)
		st := Status{EStop: "x"}
		resets := holdScript(p, 0, 2.5, nil, &st)
		st.EStop = "estop topic"
		resets = append(resets, holdScript(p, 2.55, 6, nil, &st)...)
		if len(resets) != 1 {
			t.Fatalf("resets %v, want one per hold", resets)
		}
	})
	t.Run("release for 3 frames, hold again: a second reset", func(t *testing.T) {
		p := newPad(t)
		st := Status{EStop: "x"}
		resets := holdScript(p, 0, 2.5, nil, &st)
		st.EStop = "y"
		for i := 0; i < 3; i++ {
			p.Feed(PadFrame{}, at(2.55+float64(i)*0.05), st)
		}
		resets = append(resets, holdScript(p, 2.7, 5, nil, &st)...)
		if len(resets) != 2 || !near(resets[1], 4.7, 1e-9) {
			t.Fatalf("resets %v, want 2.0 and 4.7", resets)
		}
	})
	t.Run("hold begun before the trip counts from the trip", func(t *testing.T) {
		p := newPad(t)
		st := running
		holdScript(p, 0, 3, nil, &st)
		st = Status{EStop: "estop topic"}
		resets := holdScript(p, 3.05, 6, nil, &st)
		if len(resets) != 1 || !near(resets[0], 5.05, 1e-9) {
			t.Fatalf("resets %v, want once at 5.05 s (2 s after the trip)", resets)
		}
	})
}

// press feeds a MODE press of two frames then releases it for four frames. It returns the result of the frame
// that changed the mode (else the first frame's) and whether any frame was in drive mode.
func press(p *Pad, s float64, st Status) (r PadResult, drove bool) {
	for i := 0; i < 6; i++ {
		var b uint16
		if i < 2 {
			b = modeMask
		}
		x := p.Feed(PadFrame{Buttons: b}, at(s+float64(i)*0.05), st)
		if x.ModeChanged || i == 0 {
			r = x
		}
		drove = drove || x.Mode == PadDrive
	}
	return r, drove
}

func TestPadDriveUnlock(t *testing.T) {
	cases := []struct {
		name   string
		second float64 // time of the second press
		st     Status
		want   PadMode
	}{
		{"double press 1.0 s apart while enabled unlocks", 1.0, running, PadDrive},
		{"0.7 s apart unlocks", 0.7, running, PadDrive},
		{"1.5 s apart still unlocks", 1.5, running, PadDrive},
		{"1.6 s apart does not", 1.6, running, PadLocked},
		{"0.3 s apart is one press (0.6 s lockout)", 0.3, running, PadLocked},
		{"disabled: stays locked", 1.0, stopped, PadLocked},
		{"latched: stays locked", 1.0, Status{Enabled: true, EStop: "x"}, PadLocked},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newPad(t)
			_, drove1 := press(p, 0, c.st)
			r, drove2 := press(p, c.second, c.st)
			if p.Mode() != c.want || r.Mode != c.want {
				t.Fatalf("mode %v (result %+v), want %v", p.Mode(), r, c.want)
			}
			if c.want == PadLocked && (drove1 || drove2) {
				t.Fatal("a frame was in drive mode")
			}
			if c.want == PadDrive && !r.ModeChanged {
				t.Fatal("unlock not reported as a change")
			}
			if r.Trip != "" {
				t.Fatalf("MODE tripped: %q", r.Trip)
			}
		})
	}
}

func TestPadDriveAndRelock(t *testing.T) {
	unlocked := func(t *testing.T) *Pad {
		p := newPad(t)
		press(p, 0, running)
		press(p, 1, running)
		if p.Mode() != PadDrive {
			t.Fatal("setup: not unlocked")
		}
		return p
	}
	t.Run("sticks drive as SourceGamepad commands on every frame", func(t *testing.T) {
		p := unlocked(t)
		r := p.Feed(PadFrame{LY: 127, LX: -127, RX: 127}, at(2), running)
		if r.Drive == nil || !twistNear(*r.Drive, kinematics.Twist{VX: 0.2, VY: 0.2, WZ: -1.0}, 1e-12) {
			t.Fatalf("drive %v", r.Drive)
		}
		r = p.Feed(PadFrame{}, at(2.05), running)
		if r.Drive == nil || !r.Drive.IsZero() {
			t.Fatalf("centred sticks: drive %v, want a zero command (keeps the deadman fed)", r.Drive)
		}
	})
	t.Run("locked pad never drives", func(t *testing.T) {
		p := newPad(t)
		if r := p.Feed(PadFrame{LY: 127}, t0, running); r.Drive != nil {
			t.Fatalf("locked pad drove: %v", *r.Drive)
		}
	})
	relocks := []struct {
		name   string
		do     func(p *Pad) PadResult
		reason string
		trip   string
	}{
		{"second double press", func(p *Pad) PadResult { press(p, 3, running); r, _ := press(p, 4, running); return r }, PadLockDoublePress, ""},
		{"e-stop seen on a frame", func(p *Pad) PadResult {
			return p.Feed(PadFrame{LY: 127}, at(3), Status{EStop: "estop topic"})
		}, PadLockEStop, ""},
		{"e-stop seen on a tick", func(p *Pad) PadResult { return p.Tick(at(2.5), Status{EStop: "estop topic"}) }, PadLockEStop, ""},
		{"disable", func(p *Pad) PadResult { return p.Tick(at(2.5), stopped) }, PadLockDisabled, ""},
		{"2 s of pad silence", func(p *Pad) PadResult {
			if r := p.Tick(at(1.25+2.0), running); r.ModeChanged { // last frame at 1.25 s: exactly 2 s is not yet silence
				return PadResult{Mode: "early"}
			}
			return p.Tick(at(1.25+2.05), running)
		}, PadLockSilent, ""},
		{"any button while driving trips and locks", func(p *Pad) PadResult {
			return p.Feed(PadFrame{Buttons: 0x0800, LY: 127}, at(3), running)
		}, PadLockEStop, "gamepad button 0x0800"},
	}
	for _, c := range relocks {
		t.Run(c.name, func(t *testing.T) {
			p := unlocked(t)
			r := c.do(p)
			if r.Mode != PadLocked || p.Mode() != PadLocked || !r.ModeChanged || r.LockReason != c.reason {
				t.Fatalf("result %+v, want locked because %q", r, c.reason)
			}
			if r.Drive == nil || !r.Drive.IsZero() {
				t.Fatalf("lock must send one zero command, got %v", r.Drive)
			}
			if r.Trip != c.trip {
				t.Fatalf("trip %q, want %q", r.Trip, c.trip)
			}
		})
	}
	t.Run("Lock from the runtime", func(t *testing.T) {
		p := unlocked(t)
		if !p.Lock() || p.Lock() || p.Mode() != PadLocked {
			t.Fatal("Lock did not report the change once")
		}
	})
	t.Run("after a relock by silence a new frame does not drive", func(t *testing.T) {
		p := unlocked(t)
		r := p.Feed(PadFrame{LY: 127}, at(10), running)
		if r.Mode != PadLocked || r.LockReason != PadLockSilent || r.Drive == nil || !r.Drive.IsZero() {
			t.Fatalf("result %+v", r)
		}
	})
}

func TestJoyToTwist(t *testing.T) {
	cases := []struct {
		lx, ly, rx int8
		want       kinematics.Twist
	}{
		{0, 0, 0, kinematics.Twist{}},
		{0, 127, 0, kinematics.Twist{VX: 0.2}},
		{127, 0, 0, kinematics.Twist{VY: -0.2}},
		{0, 0, 127, kinematics.Twist{WZ: -1.0}},
		{0, -128, 0, kinematics.Twist{VX: -0.2}}, // -128/127 clamps to -1
		{0, 12, 0, kinematics.Twist{}},           // 0.094 < deadzone
		{0, 13, 0, kinematics.Twist{VX: 13.0 / 127 * 0.2}},
		{-12, 0, 12, kinematics.Twist{}},
	}
	for _, c := range cases {
		got := JoyToTwist(c.lx, c.ly, c.rx, 0.2, 1.0, 0.1)
		if !twistNear(got, c.want, 1e-12) {
			t.Fatalf("JoyToTwist(%d, %d, %d) = %v, want %v", c.lx, c.ly, c.rx, got, c.want)
		}
	}
}

func TestPadConfigValidate(t *testing.T) {
	bad := []func(c *PadConfig){
		func(c *PadConfig) { c.ModeBit = 16 },
		func(c *PadConfig) { c.Deadzone = 1 },
		func(c *PadConfig) { c.MaxLinear = -1 },
		func(c *PadConfig) { c.ReleaseFrames = 0 },
		func(c *PadConfig) { c.ResetHold = 0 },
	}
	for i, mut := range bad {
		c := DefaultPadConfig()
		mut(&c)
		if _, err := NewPad(c); !errors.Is(err, ErrBadPadConfig) {
			t.Fatalf("case %d: %v", i, err)
		}
	}
}

func TestKeyTrip(t *testing.T) {
	cases := []struct {
		id, ev uint8
		key    int
		want   string
	}{
		{1, board.KeyPressed, 1, "key1"},
		{1, board.KeyClick, 1, "key1"},
		{1, board.KeyLongPress, 1, "key1"},
		{1, board.KeyReleaseFromSP, 1, ""},
		{1, board.KeyDouble, 1, ""},
		{2, board.KeyPressed, 1, ""},
		{2, board.KeyClick, 2, "key2"},
		{1, board.KeyPressed, 0, ""}, // estop_key 0: key trips off
		{1, board.KeyPressed | board.KeyReleaseFromSP, 1, "key1"},
	}
	for _, c := range cases {
		if got := KeyTrip(c.id, c.ev, c.key); got != c.want {
			t.Fatalf("KeyTrip(%d, 0x%02x, %d) = %q, want %q", c.id, c.ev, c.key, got, c.want)
		}
	}
}

// TestKeyTripEveryEventFromTheCodec: every event byte, through the board codec's own frame, trips exactly when
// it carries PRESSED, LONGPRESS or CLICK (the bits are protocol/board's, defined once).
func TestKeyTripEveryEventFromTheCodec(t *testing.T) {
	trips := 0
	for ev := 0; ev < 256; ev++ {
		f := board.EncodeKey(board.Key{ID: 1, Event: uint8(ev)})
		k, err := board.DecodeKey(f[4 : len(f)-1])
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		if k.Event&(board.KeyPressed|board.KeyLongPress|board.KeyClick) != 0 {
			want, trips = "key1", trips+1
		}
		if got := KeyTrip(k.ID, k.Event, 1); got != want {
			t.Fatalf("event 0x%02x: %q, want %q", ev, got, want)
		}
	}
	if trips != 256-32 { // 5 of 8 bits do not trip: 2^5 events without any trip bit
		t.Fatalf("%d tripping events, want 224", trips)
	}
}
