package charger

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Config sets the charger detector (chapter 11 publish_battery).
type Config struct {
	// StepMV is the smallest voltage step that means plug or unplug (PLUG_STEP_MV 190). On 2026-10-01 the
	// battery log showed +249 mV on plugging and -226 mV on unplugging, in one step, with the wheels off;
	// motor load moves the voltage by about 170 mV with the wheels on.
	StepMV int
	// History is how much voltage history is kept (8 s).
	History time.Duration
	// BaselineAge: the baseline is the median of samples older than this (2 s), so a step is compared with
	// the voltage before it, not with itself.
	BaselineAge time.Duration
	// WheelsOffFor: no decision until the wheels have been disabled this long (3 s): the motor-stop
	// transient is not a charger.
	WheelsOffFor time.Duration
}

// DefaultConfig returns 190 mV, 8 s, 2 s, 3 s.
func DefaultConfig() Config {
	return Config{StepMV: 190, History: 8 * time.Second, BaselineAge: 2 * time.Second, WheelsOffFor: 3 * time.Second}
}

// Event is what one battery sample revealed.
type Event uint8

const (
	// EventNone: no change.
	EventNone Event = iota
	// EventPlugged: a step up of at least StepMV; the charger was plugged in.
	EventPlugged
	// EventUnplugged: a step down of at least StepMV; the charger was pulled.
	EventUnplugged
)

// String returns "none", "PLUGGED" or "UNPLUGGED" (the seed's log words).
func (e Event) String() string {
	switch e {
	case EventNone:
		return "none"
	case EventPlugged:
		return "PLUGGED"
	case EventUnplugged:
		return "UNPLUGGED"
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// maxHistory bounds the history whatever the battery report rate (the board sends about 1 Hz; a
// simulator at full rate must not grow it without end).
const maxHistory = 512

// ErrBadVoltage is returned for an implausible battery reading; the sample is counted and skipped.
var ErrBadVoltage = errors.New("charger: implausible battery voltage")

type batSample struct {
	t      time.Time
	mv     int
	loaded bool // wheels enabled, or within WheelsOffFor of their disable
}

// Detector tells from the battery voltage whether the charger is plugged in. The voltage level alone
// cannot (12.30 V plugged and 12.40 V on battery were both seen on 2026-09-29); the plug and unplug show as a
// step. A sample at least StepMV above (below) the median of the samples older than BaselineAge is a plug
// (unplug), judged only while the wheels have been disabled for more than WheelsOffFor.
//
// One change from the seed: samples taken while the wheels were enabled or still within WheelsOffFor of
// their disable are kept out of the baseline. The seed's baseline could reach back into the loaded (sagged)
// voltage, so a load release bigger than StepMV would read as a plug 3 s after a disable.
//
// Persistence (the state survives a driver restart) is the runtime's job: MarshalPlugged and LoadPlugged.
type Detector struct {
	cfg      Config
	plugged  *bool
	hist     []batSample
	wheelsOn bool
	offSince time.Time
	hasOff   bool
	rejected uint64
}

// New starts with plugged (nil = unknown, or the state loaded from disk) and the wheels
// disabled. Until SetWheels says otherwise, the wheels count as disabled since the first sample: right after a
// (re)start they may just have been stopped.
func New(cfg Config, plugged *bool) *Detector {
	d := &Detector{cfg: cfg, hist: make([]batSample, 0, 16)}
	if plugged != nil {
		v := *plugged
		d.plugged = &v
	}
	return d
}

// SetWheels tells the detector whether motion is enabled at now. Call it on every change (or every tick: it
// only acts on changes); the time of the change to disabled starts the WheelsOffFor wait.
func (d *Detector) SetWheels(enabled bool, now time.Time) {
	if enabled {
		d.wheelsOn = true
		return
	}
	if d.wheelsOn || !d.hasOff {
		d.offSince, d.hasOff = now, true
	}
	d.wheelsOn = false
}

// Add feeds one battery reading in millivolts at now and returns the event it revealed and the step against
// the baseline (0 when no judgement was possible). A reading outside 1..60000 mV is counted and refused.
func (d *Detector) Add(mv int, now time.Time) (Event, int, error) {
	if mv <= 0 || mv > 60000 {
		d.rejected++
		return EventNone, 0, fmt.Errorf("%w: %d mV; sample skipped", ErrBadVoltage, mv)
	}
	if !d.wheelsOn && !d.hasOff {
		d.offSince, d.hasOff = now, true
	}
	// Drop samples older than History.
	keep := d.hist[:0]
	for _, s := range d.hist {
		if now.Sub(s.t) < d.cfg.History {
			keep = append(keep, s)
		}
	}
	d.hist = keep
	loaded := d.wheelsOn || now.Sub(d.offSince) <= d.cfg.WheelsOffFor
	ev, step := EventNone, 0
	if !loaded {
		if base, ok := d.baseline(now); ok {
			step = mv - base
			switch {
			case step >= d.cfg.StepMV && (d.plugged == nil || !*d.plugged):
				ev = EventPlugged
			case step <= -d.cfg.StepMV && (d.plugged == nil || *d.plugged):
				ev = EventUnplugged
			}
		}
	}
	if ev != EventNone {
		v := ev == EventPlugged
		d.plugged = &v
		d.hist = d.hist[:0] // the new level is the next baseline
	}
	if len(d.hist) == maxHistory {
		d.hist = append(d.hist[:0], d.hist[1:]...)
	}
	d.hist = append(d.hist, batSample{t: now, mv: mv, loaded: loaded})
	return ev, step, nil
}

// baseline is the (upper) median of the unloaded samples older than BaselineAge, or, when none is that old
// yet, the oldest unloaded sample (as the seed fell back to hist[0]).
func (d *Detector) baseline(now time.Time) (int, bool) {
	var buf [64]int
	vals := buf[:0]
	first, hasFirst := 0, false
	for _, s := range d.hist {
		if s.loaded {
			continue
		}
		if !hasFirst {
			first, hasFirst = s.mv, true
		}
		if now.Sub(s.t) > d.cfg.BaselineAge {
			vals = append(vals, s.mv)
		}
	}
	if len(vals) == 0 {
		return first, hasFirst
	}
	slices.Sort(vals)
	return vals[len(vals)/2], true
}

// Plugged returns the charger state: nil = unknown since start (and nothing loaded), else a copy.
func (d *Detector) Plugged() *bool {
	if d.plugged == nil {
		return nil
	}
	v := *d.plugged
	return &v
}

// Rejected counts implausible readings.
func (d *Detector) Rejected() uint64 { return d.rejected }

// PluggedRecord is the small JSON file that carries the charger state across driver restarts (the seed's
// ~/battery/plugged.json): a restart does not move the cable.
type PluggedRecord struct {
	Plugged *bool `json:"plugged"`
	// T is the Unix time of the detection, in seconds.
	T float64 `json:"t"`
}

// MarshalPlugged returns the JSON record {"plugged": ..., "t": unix seconds}.
func MarshalPlugged(plugged bool, t time.Time) ([]byte, error) {
	return json.Marshal(PluggedRecord{Plugged: &plugged, T: float64(t.UnixNano()) / 1e9})
}

// LoadPlugged parses a record written by MarshalPlugged (or by the seed). A record without a "plugged" boolean
// is an error; the caller then starts with the state unknown.
func LoadPlugged(b []byte) (plugged *bool, t time.Time, err error) {
	var r PluggedRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, time.Time{}, fmt.Errorf("charger state file: %w; delete it, the state starts unknown", err)
	}
	if r.Plugged == nil {
		return nil, time.Time{}, errors.New(`charger state file: no "plugged" value; delete it, the state starts unknown`)
	}
	if math.IsNaN(r.T) || math.IsInf(r.T, 0) || r.T < 0 {
		r.T = 0
	}
	sec, frac := math.Modf(r.T)
	return r.Plugged, time.Unix(int64(sec), int64(frac*1e9)), nil
}
