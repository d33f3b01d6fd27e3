package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
)

// FaultKind names a fault or event, spelled as on the command line.
type FaultKind string

// The faults, one per entry of FaultSpecs.
const (
	FaultUSBDrop     FaultKind = "usb-drop"
	FaultHang        FaultKind = "hang"
	FaultIgnoreMotor FaultKind = "ignore-motor"
	FaultLidarSilent FaultKind = "lidar-silent"
	FaultLidarUnplug FaultKind = "lidar-unplug"
	FaultCorrupt     FaultKind = "corrupt"
	FaultButton      FaultKind = "button"
	FaultPad         FaultKind = "pad"
	FaultSticks      FaultKind = "sticks"
	FaultKey         FaultKind = "key"
	FaultBattery     FaultKind = "battery-step"
	FaultStall       FaultKind = "stall"
	FaultObstacle    FaultKind = "obstacle"
	FaultFlakyStop   FaultKind = "flaky-stop"
	FaultStopLag     FaultKind = "stop-lag"
	FaultBoardReset  FaultKind = "board-reset"
	FaultWeakBrake   FaultKind = "weak-brake"
	FaultWearBrake   FaultKind = "wear-brake"
)

// DefaultBoardBoot is how long the board-reset fault's firmware boots when no BOOT is given.
const DefaultBoardBoot = 800 * time.Millisecond

// Fault is one parsed fault or event. At > 0 delays it after the sim's start (suffix "@DURATION").
type Fault struct {
	Kind      FaultKind
	On        bool          // switches
	Dur       time.Duration // usb-drop, lidar-unplug, stop-lag, board-reset (its boot time)
	ToBoard   bool          // corrupt: direction
	Rate      float64       // corrupt
	Mask      uint16        // button
	Frames    int           // button
	Sticks    [4]int8       // sticks: LX, LY, RX, RY as the board sends them (raw/127 gives -1..1)
	ID, Event uint8         // key
	MV        int           // battery-step
	K         int           // flaky-stop
	Dist, Deg float64       // obstacle: near face DIST m from the robot's centre at bearing DEG (0 = ahead)
	Factor    float64       // weak-brake: the fraction (0, 1] of the normal deceleration (1 = off)
	Wear      Wear          // wear-brake: the law (Rate 0 = off)
	At        time.Duration
	Text      string // as given
}

// FaultSpec is one fault's entry in the table that drives ParseFault, FaultHelp, the control socket,
// the rosorin-sim subcommands, the truth's list of faults in effect and the fault table in docs/sim.md.
// Adding a fault is one entry: its syntax and texts, its parser, its behaviour (apply) and its state
// (active).
type FaultSpec struct {
	Kind FaultKind
	// Form is the syntax with an example value, as in FaultHelp and the doc table: "usb-drop=3s",
	// "hang[=on|off]".
	Form string
	// Example is a valid fault of this kind (checked by a test).
	Example string
	// Doc says what the fault does (the subcommand's usage line and the doc table).
	Doc string
	// Switch faults take an optional on|off (default on) and have a state to clear.
	Switch bool
	// Args names the subcommand's positional arguments, joined by Sep into the value after "=". A single
	// argument is also taken as the value as written after "=" ("corrupt to-board:0.01").
	Args []string
	Sep  string
	// Need says what a valid value is, for error messages.
	Need string
	// Option is a subcommand flag appended to the value after ":" (button --frames N); "" for none.
	Option, OptionUsage, OptionDefault string
	// active appends what the truth lists while the fault is in effect (nil for one-shot events).
	active func(c *core, a []string) []string
	// apply is the fault's behaviour, run on the core goroutine (the owner of the physics and the devices).
	apply func(c *core, f Fault, now time.Time)
	// parse fills f from the value after "=" (val, "" when absent) or says why it is invalid.
	parse func(f *Fault, val string, hasVal bool) error
	// refuse, when set, says why the event cannot happen now (nil: it can); a refused event changes nothing
	// and its reason is the caller's error (Sim.Apply, the control socket) or, scheduled, an event in the
	// truth.
	refuse func(c *core) error
}

// FaultSpecs is the fault table, in the order of the help and the docs.
var FaultSpecs = []FaultSpec{
	{
		Kind: FaultUSBDrop, Form: "usb-drop=3s", Example: "usb-drop=3s", Args: []string{"DURATION"},
		Doc:    "the board's USB device disappears for DURATION; a new one appears at the same path (wheels keep turning)",
		Need:   "a duration between 0 and 1h, e.g. =3s",
		parse:  parseDur,
		apply:  func(c *core, f Fault, now time.Time) { unplug(&c.board, &c.boardBack, now, f.Dur) },
		active: func(c *core, a []string) []string { return addIf(a, c.board == nil, "usb-drop") },
	},
	{
		Kind: FaultHang, Form: "hang[=on|off]", Example: "hang=on", Switch: true,
		Doc:    "the board firmware stops reading and sending (on) or resumes (off); wheels keep turning",
		apply:  func(c *core, f Fault, _ time.Time) { c.hang = f.On; c.s.hang.set(f.On) },
		active: func(c *core, a []string) []string { return addIf(a, c.hang, "hang") },
	},
	{
		Kind: FaultIgnoreMotor, Form: "ignore-motor[=on|off]", Example: "ignore-motor=on", Switch: true,
		Doc:    "the board receives motor frames but does not obey them (a broken stop: the stop judges' negative control)",
		apply:  func(c *core, f Fault, _ time.Time) { c.ignoreMotor = f.On },
		active: func(c *core, a []string) []string { return addIf(a, c.ignoreMotor, "ignore-motor") },
	},
	{
		Kind: FaultLidarSilent, Form: "lidar-silent[=on|off]", Example: "lidar-silent=off", Switch: true,
		Doc:    "the LiDAR port stays open but sends no bytes",
		apply:  func(c *core, f Fault, _ time.Time) { c.lidarSilent = f.On },
		active: func(c *core, a []string) []string { return addIf(a, c.lidarSilent, "lidar-silent") },
	},
	{
		Kind: FaultLidarUnplug, Form: "lidar-unplug=2s", Example: "lidar-unplug=2s", Args: []string{"DURATION"},
		Doc:    "the LiDAR device disappears for DURATION; a new one appears at the same path",
		Need:   "a duration between 0 and 1h, e.g. =3s",
		parse:  parseDur,
		apply:  func(c *core, f Fault, now time.Time) { unplug(&c.lidar, &c.lidarBack, now, f.Dur) },
		active: func(c *core, a []string) []string { return addIf(a, c.lidar == nil, "lidar-unplug") },
	},
	{
		Kind: FaultCorrupt, Form: "corrupt=to-board:0.01", Example: "corrupt=from-board:0.01",
		Args: []string{"to-board|from-board", "RATE"}, Sep: ":",
		Doc:  "flip one bit in a fraction RATE of the bytes the board receives (to-board) or sends (from-board); 0 = off",
		Need: "a direction to-board or from-board and a rate in [0, 1], e.g. to-board:0.01",
		parse: func(f *Fault, val string, _ bool) error {
			dir, rate, ok := strings.Cut(val, ":")
			switch dir {
			case "to-board":
				f.ToBoard = true
			case "from-board":
			default:
				return errors.New("direction must be to-board or from-board")
			}
			r, err := strconv.ParseFloat(rate, 64)
			if !ok || err != nil || !(r >= 0 && r <= 1) {
				return errors.New("rate must be a probability per byte in [0, 1]")
			}
			f.Rate = r
			return nil
		},
		apply: func(c *core, f Fault, _ time.Time) {
			if f.ToBoard {
				c.s.toBoardRate.Store(math.Float64bits(f.Rate))
			} else {
				c.fromBoardRate = f.Rate
			}
		},
		active: func(c *core, a []string) []string {
			a = addIf(a, c.s.toBoardRate.Load() != 0, "corrupt=to-board")
			return addIf(a, c.fromBoardRate != 0, "corrupt=from-board")
		},
	},
	{
		Kind: FaultButton, Form: "button=0x0100[:FRAMES]", Example: "button=0x0100:3", Args: []string{"MASK"},
		Option: "frames", OptionUsage: "number of gamepad reports `N` carrying the mask", OptionDefault: "1",
		Doc:  "hold gamepad buttons MASK (0x0100 = CROSS) for FRAMES reports (20 Hz; sent even with no pad connected)",
		Need: "a non-zero 16-bit mask, e.g. 0x0100",
		parse: func(f *Fault, val string, _ bool) error {
			m, fr, hasFr := strings.Cut(val, ":")
			mask, err := strconv.ParseUint(m, 0, 16)
			if err != nil || mask == 0 {
				return errors.New("mask must be a non-zero 16-bit number, e.g. 0x0100")
			}
			f.Mask, f.Frames = uint16(mask), 1
			if hasFr {
				n, err := strconv.Atoi(fr)
				if err != nil || n < 1 || n > 100000 {
					return errors.New("frames must be a positive count")
				}
				f.Frames = n
			}
			return nil
		},
		apply: func(c *core, f Fault, _ time.Time) { c.holdMask, c.holdFrames = f.Mask, f.Frames },
	},
	{
		Kind: FaultPad, Form: "pad[=on|off]", Example: "pad=on", Switch: true,
		Doc:    "a gamepad is connected (20 Hz reports) or disconnected",
		apply:  func(c *core, f Fault, _ time.Time) { c.pad = f.On },
		active: func(c *core, a []string) []string { return addIf(a, c.pad, "pad") },
	},
	{
		Kind: FaultSticks, Form: "sticks=LX,LY,RX,RY", Example: "sticks=0,64,0,0", Args: []string{"LX", "LY", "RX", "RY"}, Sep: ",",
		Doc: "set the gamepad stick axes (int8, raw/127 gives -1..1) carried by every gamepad report until changed " +
			"(while a pad is connected or a button is held); 0,64,0,0 is the left stick half forward, 0,0,0,0 centres",
		Need: "four axes LX,LY,RX,RY, each -128..127, e.g. sticks=0,64,0,0 (left stick half forward)",
		parse: func(f *Fault, val string, _ bool) error {
			parts := strings.Split(val, ",")
			if len(parts) != 4 {
				return errors.New("needs four axes LX,LY,RX,RY, each -128..127, e.g. sticks=0,64,0,0 (left stick half forward)")
			}
			for i, p := range parts {
				v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 8)
				if err != nil {
					return errors.New("axis " + strconv.Quote(p) + " is not an integer in -128..127")
				}
				f.Sticks[i] = int8(v)
			}
			return nil
		},
		apply: func(c *core, f Fault, _ time.Time) { c.sticks = f.Sticks },
		active: func(c *core, a []string) []string {
			if c.sticks == [4]int8{} { // formatted only when off centre: publish runs every tick
				return a
			}
			return append(a, fmt.Sprintf("sticks=%d,%d,%d,%d", c.sticks[0], c.sticks[1], c.sticks[2], c.sticks[3]))
		},
	},
	{
		Kind: FaultKey, Form: "key=1:0x01", Example: "key=1:0x01", Args: []string{"ID", "EVENT"}, Sep: ":",
		Doc:  "send one key frame (ID, EVENT bits; 1:0x01 = key 1 pressed)",
		Need: "ID:EVENT, e.g. 1:0x01 (pressed)",
		parse: func(f *Fault, val string, _ bool) error {
			id, ev, ok := strings.Cut(val, ":")
			i, err1 := strconv.ParseUint(id, 0, 8)
			e, err2 := strconv.ParseUint(ev, 0, 8)
			if !ok || err1 != nil || err2 != nil {
				return errors.New("needs ID:EVENT, e.g. 1:0x01 (pressed)")
			}
			f.ID, f.Event = uint8(i), uint8(e)
			return nil
		},
		apply: func(c *core, f Fault, _ time.Time) { c.keys = append(c.keys, board.Key{ID: f.ID, Event: f.Event}) },
	},
	{
		Kind: FaultBattery, Form: "battery-step=+250", Example: "battery-step=-250", Args: []string{"MV"},
		Doc:  "shift the battery voltage by MV: charger plugged (+250) or unplugged (-250)",
		Need: "a step in mV, e.g. +250 or -250",
		parse: func(f *Fault, val string, _ bool) error {
			mv, err := strconv.Atoi(val)
			if err != nil {
				return fmt.Errorf("%q is not a number of mV; needs a step in mV, e.g. +250 or -250", val)
			}
			if mv < -5000 || mv > 5000 {
				return errors.New("needs a step in mV within +-5000, e.g. +250 or -250")
			}
			f.MV = mv
			return nil
		},
		apply: func(c *core, f Fault, _ time.Time) { c.bat.Step(f.MV) },
	},
	{
		Kind: FaultStall, Form: "stall[=on|off]", Example: "stall=on", Switch: true,
		Doc:    "the robot body is held (as against an obstacle); the wheels keep turning",
		apply:  func(c *core, f Fault, _ time.Time) { c.phys.Pinned = f.On },
		active: func(c *core, a []string) []string { return addIf(a, c.phys.Pinned, "stall") },
	},
	{
		Kind: FaultObstacle, Form: "obstacle=0.45:0", Example: "obstacle=0.45:90", Args: []string{"DIST", "BEARING"}, Sep: ":",
		Doc: "a 0.3 m box appears with its near face DIST m from the robot's centre at BEARING degrees (0 = ahead, 90 = left; " +
			"default 0), seen by the LiDAR and solid to the robot; 0 removes it (the floor proof's guard's negative control)",
		Need: "a distance in m (0 removes the box) and an optional bearing in degrees, e.g. 0.45 or 0.45:90",
		parse: func(f *Fault, val string, _ bool) error {
			d, b, hasB := strings.Cut(val, ":")
			dist, err := strconv.ParseFloat(d, 64)
			if err != nil || !(dist >= 0 && dist <= 20) {
				return errors.New("distance must be in [0, 20] m (0 removes the box)")
			}
			f.Dist = dist
			if hasB {
				deg, err := strconv.ParseFloat(b, 64)
				if err != nil || math.IsNaN(deg) || math.IsInf(deg, 0) {
					return errors.New("bearing must be a number of degrees")
				}
				f.Deg = deg
			}
			return nil
		},
		apply:  func(c *core, f Fault, _ time.Time) { c.setObstacle(f.Dist, f.Deg) },
		active: func(c *core, a []string) []string { return addIf(a, c.obstacle, "obstacle") },
	},
	{
		Kind: FaultFlakyStop, Form: "flaky-stop=K", Example: "flaky-stop=3", Args: []string{"K"},
		Doc: "the board ignores one stop in K: counting stops (motor frames that take the wheels from turning to all zero) " +
			"from the fault's start, the K-th, 2K-th, ... is ignored with the zero frames after it until motion is commanded again; " +
			"the same K again keeps the count, 0 = off (a campaign's negative control)",
		Need: "a whole number K >= 0 (0 = off), e.g. 3",
		parse: func(f *Fault, val string, _ bool) error {
			k, err := strconv.Atoi(val)
			if err != nil || k < 0 || k > 1000000 {
				return errors.New("needs a whole number K >= 0 (0 = off), e.g. flaky-stop=3")
			}
			f.K = k
			return nil
		},
		apply: func(c *core, f Fault, _ time.Time) {
			if f.K != c.flakyK { // the same K again (applied at each trigger) keeps counting
				c.flakyK, c.flakyStops, c.flakyHeld = f.K, 0, false
			}
		},
		active: func(c *core, a []string) []string {
			if c.flakyK == 0 { // formatted only when on: publish runs every tick
				return a
			}
			return append(a, "flaky-stop="+strconv.Itoa(c.flakyK))
		},
	},
	{
		Kind: FaultStopLag, Form: "stop-lag=150ms", Example: "stop-lag=150ms", Args: []string{"DURATION"},
		Doc: "the board applies every stop (a motor frame taking the wheels from turning to all zero) DURATION late, " +
			"the zero frames after it too; a frame commanding motion meanwhile cancels it; 0 = off (worn brakes: a slowed stop " +
			"that still passes, for the history's regression check)",
		Need: "a duration between 0 and 5s, e.g. =150ms",
		parse: func(f *Fault, val string, _ bool) error {
			d, err := time.ParseDuration(val)
			if err != nil || d < 0 || d > 5*time.Second {
				return errors.New("needs a duration between 0 and 5s, e.g. stop-lag=150ms")
			}
			f.Dur = d
			return nil
		},
		apply: func(c *core, f Fault, _ time.Time) { c.stopLag = f.Dur },
		active: func(c *core, a []string) []string {
			if c.stopLag == 0 {
				return a
			}
			return append(a, "stop-lag="+c.stopLag.String())
		},
	},
	{
		Kind: FaultBoardReset, Form: "board-reset[=800ms]", Example: "board-reset=800ms", Args: []string{"BOOT"},
		Doc: "the board's firmware restarts with its USB port open (a board behind a USB-serial bridge; one whose native USB " +
			"re-enumerates is usb-drop): the wheels' targets " +
			"go to zero at once (the wheels slow down), a held button and a hang are forgotten, and for BOOT (default 800ms) " +
			"it sends nothing and drops what it is sent; then it streams again and obeys the motor frames received after the boot",
		Need:   "a boot time between 0 and 1h, e.g. =800ms (default 800ms)",
		parse:  parseBoot,
		apply:  func(c *core, f Fault, now time.Time) { c.boardReset(now, f.Dur) },
		active: func(c *core, a []string) []string { return addIf(a, c.booting, "board-reset") },
	},
	{
		Kind: FaultWeakBrake, Form: "weak-brake=0.5", Example: "weak-brake=0.5", Args: []string{"FACTOR"},
		Doc: "every wheel slowing down (toward a lower target, a stop in particular) decelerates at FACTOR (0 < FACTOR <= 1) " +
			"of the model's deceleration (its run-down time constant divided by FACTOR), on the stand and the floor; " +
			"spin-up unchanged; 1 = off; survives a board-reset (worn brakes or a slippery floor: every stop takes " +
			"longer and travels about 1/FACTOR as far, sim.StoppingTruth; the stopping envelope's negative control)",
		Need: "a fraction FACTOR with 0 < FACTOR <= 1 of the normal deceleration (1 = off), e.g. =0.5",
		parse: func(f *Fault, val string, _ bool) error {
			x, err := strconv.ParseFloat(val, 64)
			if err != nil || !(x > 0 && x <= 1) {
				return fmt.Errorf("%q is not a fraction of the normal deceleration: needs 0 < FACTOR <= 1 (1 = off), e.g. weak-brake=0.5", val)
			}
			f.Factor = x
			return nil
		},
		apply: func(c *core, f Fault, now time.Time) {
			c.phys.Brake = f.Factor
			if c.wear.Rate > 0 { // new brakes of that factor, which wear from now on
				c.restartWear(f.Factor, now)
			}
		},
		active: func(c *core, a []string) []string {
			if c.phys.Brake <= 0 || c.phys.Brake >= 1 { // formatted only when on: publish runs every tick
				return a
			}
			return append(a, "weak-brake="+strconv.FormatFloat(c.phys.Brake, 'g', -1, 64))
		},
	},
	{
		Kind: FaultWearBrake, Form: "wear-brake=5%/stop[,min=0.1]", Example: "wear-brake=5%/stop", Args: []string{"RATE"},
		Doc: "the brakes wear in service: weak-brake's factor (the fraction of the model's deceleration) is divided by " +
			"1+RATE at every stop the board obeys (the wheels' targets from turning to all zero: a motor frame, a lagged stop, " +
			"a board-reset), before that stop's run-down (RATE%/stop), or continuously by 1+RATE per minute of sim time " +
			"(RATE%/min): factor = max(base x (1+RATE)^-n, FLOOR) with base the factor when the wear started (1, or weak-brake's) " +
			"and n the stops or minutes since, so every stop (or minute) lengthens the stops' time and distance by RATE " +
			"(sim.WearCrossing says when they break a limit); FLOOR (min=, default 0.1) bounds it; the same value again keeps " +
			"wearing, another starts from the factor in effect, weak-brake=F while wearing restarts it from F, 0 stops the wear " +
			"and keeps the factor, survives a board-reset (the in-service stop monitor's negative control)",
		Need: wearNeed,
		parse: func(f *Fault, val string, _ bool) error {
			w, err := ParseWear(val)
			f.Wear = w
			return err
		},
		apply: func(c *core, f Fault, now time.Time) { c.setWear(f.Wear, now) },
		active: func(c *core, a []string) []string {
			if c.wear.Rate <= 0 { // formatted only when on: publish runs every tick
				return a
			}
			return append(a, "wear-brake="+c.wear.String())
		},
	},
	{
		Kind: FaultHome, Form: "home", Example: "home", Need: "no value",
		Doc: "the world puts the robot back on its mark: with every wheel at rest (targets and speeds zero) the body is moved " +
			"to the pose it had when the sim started, at rest; a teleport: the LiDAR sees the room from there at once, the IMU " +
			"shows nothing; refused while the wheels turn or are commanded, or while the obstacle box covers the mark " +
			"(between a floor campaign's runs; on a robot the campaign asks the operator)",
		parse:  parseNoValue,
		refuse: func(c *core) error { return c.homeRefusal() },
		apply:  func(c *core, _ Fault, now time.Time) { c.home(now) },
	},
}

// parseBoot is board-reset's value: the boot time, DefaultBoardBoot when absent.
func parseBoot(f *Fault, val string, hasVal bool) error {
	if !hasVal {
		f.Dur = DefaultBoardBoot
		return nil
	}
	d, err := time.ParseDuration(val)
	if err != nil || d <= 0 || d > time.Hour {
		return errors.New("needs a boot time between 0 and 1h, e.g. board-reset=800ms (default 800ms)")
	}
	f.Dur = d
	return nil
}

// ObstacleSize is the side (m) of the box the obstacle fault puts in the robot's way.
const ObstacleSize = 0.3

// setObstacle puts the obstacle box into the room the physics and the LiDAR see (a new Room: rooms are
// immutable and shared), or takes it out again for dist 0.
func (c *core) setObstacle(dist, deg float64) {
	c.obstacle = dist > 0
	room := c.s.room
	if c.obstacle {
		r := *room
		a := c.phys.Pose[2] + deg*math.Pi/180
		d := dist + ObstacleSize/2
		cx, cy := c.phys.Pose[0]+d*math.Cos(a), c.phys.Pose[1]+d*math.Sin(a)
		r.Segments = append(append([]Segment(nil), room.Segments...), boxSegments(cx, cy, ObstacleSize, ObstacleSize, a)...)
		room = &r
	}
	c.phys.Room, c.lid.room = room, room
}

// FaultHelp is the syntax, for --help texts and error messages.
var FaultHelp = faultHelp()

func faultHelp() string {
	forms := make([]string, len(FaultSpecs))
	for i, sp := range FaultSpecs {
		forms[i] = sp.Form
	}
	return strings.Join(forms, " | ") + "; append @DELAY (e.g. hang@5s) to schedule it after the start"
}

// FaultSpecFor returns the table entry of kind.
func FaultSpecFor(kind FaultKind) (FaultSpec, bool) {
	for _, sp := range FaultSpecs {
		if sp.Kind == kind {
			return sp, true
		}
	}
	return FaultSpec{}, false
}

// IsSwitch reports whether k is an on/off fault (one with a state to clear).
func (k FaultKind) IsSwitch() bool {
	sp, ok := FaultSpecFor(k)
	return ok && sp.Switch
}

// ParseFault parses the CLI syntax, e.g. "usb-drop=3s", "corrupt=from-board:0.01", "button=0x0100:3",
// "hang@2s".
func ParseFault(s string) (Fault, error) {
	f := Fault{Text: s}
	body := strings.TrimSpace(s)
	if i := strings.LastIndexByte(body, '@'); i >= 0 {
		d, err := time.ParseDuration(body[i+1:])
		if err != nil || d < 0 {
			return f, fmt.Errorf("fault %q: bad delay after @ (want e.g. @5s)", s)
		}
		f.At, body = d, body[:i]
	}
	name, val, hasVal := strings.Cut(body, "=")
	f.Kind = FaultKind(strings.ToLower(strings.TrimSpace(name)))
	val = strings.TrimSpace(val)
	bad := func(why string) (Fault, error) {
		return f, fmt.Errorf("fault %q: %s (syntax: %s)", s, why, FaultHelp)
	}
	if f.Kind == "" {
		return bad("empty fault")
	}
	sp, ok := FaultSpecFor(f.Kind)
	if !ok {
		return bad("unknown fault " + strconv.Quote(string(f.Kind)))
	}
	parse := sp.parse
	if sp.Switch {
		parse = parseSwitch
	}
	if err := parse(&f, val, hasVal); err != nil {
		return bad(err.Error())
	}
	return f, nil
}

func parseSwitch(f *Fault, val string, hasVal bool) error {
	f.On = true
	if hasVal {
		on, err := parseOnOff(val)
		if err != nil {
			return err
		}
		f.On = on
	}
	return nil
}

func parseDur(f *Fault, val string, _ bool) error {
	d, err := time.ParseDuration(val)
	if err != nil || d <= 0 || d > time.Hour {
		return errors.New("needs a duration between 0 and 1h, e.g. =3s")
	}
	f.Dur = d
	return nil
}

func parseOnOff(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, errors.New("want on or off, got " + strconv.Quote(v))
}

// CLIArgs names a fault's subcommand arguments ("on|off" for a switch).
func (sp FaultSpec) CLIArgs() []string {
	if sp.Switch {
		return []string{"on|off"}
	}
	return sp.Args
}

// Request builds the control-socket request for the fault's subcommand from its positional arguments and
// its option value ("" when it has none), and checks it with ParseFault, so a bad value is reported before
// any simulator is contacted.
func (sp FaultSpec) Request(args []string, option string) (string, error) {
	want := sp.CLIArgs()
	if len(want) == 0 && sp.Option == "" { // an event without a value (home)
		if len(args) != 0 {
			return "", fmt.Errorf("%s takes no arguments, got %q", sp.Kind, args)
		}
		if _, err := ParseFault(string(sp.Kind)); err != nil {
			return "", err
		}
		return string(sp.Kind), nil
	}
	var val string
	switch {
	case len(args) == len(want):
		val = strings.Join(args, sp.Sep)
	case len(args) == 1 && sp.Sep != "":
		val = args[0] // the value as written after "=", e.g. to-board:0.01
	default:
		need := sp.Need
		if sp.Switch {
			need = "on or off"
		}
		return "", fmt.Errorf("%s needs %s (arguments %s), got %q", sp.Kind, need, strings.Join(want, " "), args)
	}
	if sp.Option != "" {
		val += ":" + option
	}
	req := string(sp.Kind) + "=" + val
	if _, err := ParseFault(req); err != nil {
		return "", err
	}
	return req, nil
}

// FaultTable is the fault table of docs/sim.md (a test keeps the two equal).
func FaultTable() string {
	var b strings.Builder
	b.WriteString("| fault | what it does |\n|---|---|\n")
	for _, sp := range FaultSpecs {
		fmt.Fprintf(&b, "| `%s` | %s |\n", strings.ReplaceAll(sp.Form, "|", `\|`), sp.Doc)
	}
	return b.String()
}
