package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FaultKind names a fault or event, spelled as on the command line.
type FaultKind string

const (
	FaultUSBDrop     FaultKind = "usb-drop"     // =DURATION: board device gone, a new one at the same path after it
	FaultHang        FaultKind = "hang"         // [=on|off]: firmware stops reading and sending, motors keep speed
	FaultIgnoreMotor FaultKind = "ignore-motor" // [=on|off]: motor frames are received but not obeyed
	FaultLidarSilent FaultKind = "lidar-silent" // [=on|off]: LiDAR port open, no bytes
	FaultLidarUnplug FaultKind = "lidar-unplug" // =DURATION: LiDAR device gone, back after it
	FaultCorrupt     FaultKind = "corrupt"      // =to-board:RATE | from-board:RATE (per byte, 0..1)
	FaultButton      FaultKind = "button"       // =MASK[:FRAMES]: gamepad buttons held for FRAMES frames (default 1)
	FaultPad         FaultKind = "pad"          // [=on|off]: gamepad connected (20 Hz reports)
	FaultSticks      FaultKind = "sticks"       // =LX,LY,RX,RY: stick axes (int8) in every gamepad report until changed
	FaultKey         FaultKind = "key"          // =ID:EVENT: one key frame
	FaultBattery     FaultKind = "battery-step" // =[+-]MV: charger plugged (+) or unplugged (-)
	FaultStall       FaultKind = "stall"        // [=on|off]: body held, wheels keep turning
)

// Fault is one parsed fault or event. At > 0 delays it after the sim's start (suffix "@DURATION").
type Fault struct {
	Kind      FaultKind
	On        bool          // switches
	Dur       time.Duration // usb-drop, lidar-unplug
	ToBoard   bool          // corrupt: direction
	Rate      float64       // corrupt
	Mask      uint16        // button
	Frames    int           // button
	Sticks    [4]int8       // sticks: LX, LY, RX, RY as the board sends them (raw/127 gives -1..1)
	ID, Event uint8         // key
	MV        int           // battery-step
	At        time.Duration
	Text      string // as given
}

// FaultHelp is the syntax, for --help texts and error messages.
const FaultHelp = `usb-drop=3s | hang[=on|off] | ignore-motor[=on|off] | lidar-silent[=on|off] | lidar-unplug=2s |
corrupt=to-board:0.01 | corrupt=from-board:0.01 | button=0x0100[:FRAMES] | pad[=on|off] | sticks=LX,LY,RX,RY |
key=1:0x01 | battery-step=+250 | stall[=on|off]; append @DELAY (e.g. hang@5s) to schedule it after the start`

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
	switch f.Kind {
	case FaultHang, FaultIgnoreMotor, FaultLidarSilent, FaultPad, FaultStall:
		f.On = true
		if hasVal {
			on, err := parseOnOff(val)
			if err != nil {
				return bad(err.Error())
			}
			f.On = on
		}
	case FaultUSBDrop, FaultLidarUnplug:
		d, err := time.ParseDuration(val)
		if err != nil || d <= 0 || d > time.Hour {
			return bad("needs a duration between 0 and 1h, e.g. =3s")
		}
		f.Dur = d
	case FaultCorrupt:
		dir, rate, ok := strings.Cut(val, ":")
		switch dir {
		case "to-board":
			f.ToBoard = true
		case "from-board":
		default:
			return bad("direction must be to-board or from-board")
		}
		r, err := strconv.ParseFloat(rate, 64)
		if !ok || err != nil || !(r >= 0 && r <= 1) {
			return bad("rate must be a probability per byte in [0, 1]")
		}
		f.Rate = r
	case FaultButton:
		m, fr, hasFr := strings.Cut(val, ":")
		mask, err := strconv.ParseUint(m, 0, 16)
		if err != nil || mask == 0 {
			return bad("mask must be a non-zero 16-bit number, e.g. 0x0100")
		}
		f.Mask, f.Frames = uint16(mask), 1
		if hasFr {
			n, err := strconv.Atoi(fr)
			if err != nil || n < 1 || n > 100000 {
				return bad("frames must be a positive count")
			}
			f.Frames = n
		}
	case FaultSticks:
		parts := strings.Split(val, ",")
		if len(parts) != 4 {
			return bad("needs four axes LX,LY,RX,RY, each -128..127, e.g. sticks=0,64,0,0 (left stick half forward)")
		}
		for i, p := range parts {
			v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 8)
			if err != nil {
				return bad("axis " + strconv.Quote(p) + " is not an integer in -128..127")
			}
			f.Sticks[i] = int8(v)
		}
	case FaultKey:
		id, ev, ok := strings.Cut(val, ":")
		i, err1 := strconv.ParseUint(id, 0, 8)
		e, err2 := strconv.ParseUint(ev, 0, 8)
		if !ok || err1 != nil || err2 != nil {
			return bad("needs ID:EVENT, e.g. 1:0x01 (pressed)")
		}
		f.ID, f.Event = uint8(i), uint8(e)
	case FaultBattery:
		mv, err := strconv.Atoi(val)
		if err != nil || mv < -5000 || mv > 5000 {
			return bad("needs a step in mV, e.g. +250 or -250")
		}
		f.MV = mv
	case "":
		return bad("empty fault")
	default:
		return bad("unknown fault " + strconv.Quote(string(f.Kind)))
	}
	return f, nil
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
