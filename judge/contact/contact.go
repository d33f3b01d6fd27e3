package contact

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/scanmatch"
)

// Mode is what the driver does with a contact.
type Mode uint8

const (
	// Act latches the e-stop (the default).
	Act Mode = iota
	// Log only reports.
	Log
	// Off runs neither the matcher nor the decision.
	Off
)

func (m Mode) String() string {
	switch m {
	case Act:
		return "act"
	case Log:
		return "log"
	case Off:
		return "off"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode reads "act", "log" or "off" ("" is act).
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "act":
		return Act, nil
	case "log":
		return Log, nil
	case "off":
		return Off, nil
	}
	return Act, fmt.Errorf("contact mode %q unknown; use act (latch the e-stop), log (report only) or off", s)
}

// Config holds the reflex's constants. DefaultConfig is chapter 19's.
type Config struct {
	// Lag: the odometry lags the command by this much; the command is delayed to match (seed LAG 0.2 s).
	Lag time.Duration
	// Win: velocities are averaged over this window (seed WIN 0.3 s).
	Win time.Duration
	// VMin (m/s) and Settle: only a command at least this fast for this long is judged (seed V_MIN 0.08,
	// SETTLE 0.5 s): a tap or the start of a ramp is not.
	VMin   float64
	Settle time.Duration
	// WMin (rad/s): a turning command at least this fast (for Settle) is judged with the gyro z.
	WMin float64
	// Ratio: a stall when the measured motion along the commanded direction is below Ratio of the command
	// (seed RATIO 0.15: on the rug free driving makes 25-88 % of the command, contacts 0-3 %).
	Ratio float64
	// Hold: a contact when the stall lasts this long (seed HOLD 0.3 s).
	Hold time.Duration
	// OdoStale: no odometry for this long while commanded: cannot judge (the scan gate's 0.5 s).
	OdoStale time.Duration
	// History is how much command, gyro and odometry is kept with a contact event.
	History time.Duration
}

// DefaultConfig returns chapter 19's constants.
func DefaultConfig() Config {
	return Config{Lag: 200 * time.Millisecond, Win: 300 * time.Millisecond, VMin: 0.08, Settle: 500 * time.Millisecond,
		WMin: 0.3, Ratio: 0.15, Hold: 300 * time.Millisecond, OdoStale: 500 * time.Millisecond, History: 3 * time.Second}
}

// Validate says which constant to fix.
func (c Config) Validate() error {
	durs := []struct {
		n      string
		v      time.Duration
		lo, hi time.Duration
	}{
		{"contact_lag", c.Lag, 0, 2 * time.Second},
		{"contact_win", c.Win, 100 * time.Millisecond, 2 * time.Second},
		{"contact_settle", c.Settle, 0, 5 * time.Second},
		{"contact_hold", c.Hold, 0, 5 * time.Second},
		{"contact_odo_stale", c.OdoStale, 100 * time.Millisecond, 5 * time.Second},
		{"contact_history", c.History, 0, 30 * time.Second},
	}
	for _, d := range durs {
		if d.v < d.lo || d.v > d.hi {
			return fmt.Errorf("%s = %v; use %v..%v", d.n, d.v, d.lo, d.hi)
		}
	}
	nums := []struct {
		n      string
		v      float64
		lo, hi float64
	}{{"contact_v_min", c.VMin, 0.01, 1}, {"contact_w_min", c.WMin, 0.05, 5}, {"contact_ratio", c.Ratio, 0.01, 0.9}}
	for _, x := range nums {
		if !(x.v >= x.lo && x.v <= x.hi) {
			return fmt.Errorf("%s = %v; use %v..%v", x.n, x.v, x.lo, x.hi)
		}
	}
	return nil
}

// CmdSample is the gated command that reached the wheels at T.
type CmdSample struct {
	T time.Time
	V kinematics.Twist
}

// GyroSample is the bias-corrected gyro z (rad/s) at T.
type GyroSample struct {
	T  time.Time
	WZ float64
}

// Odo is one odometry estimate placed on the monitor's clock: T is its mid-sweep time (Estimate.Time) in
// the clock the commands use.
type Odo struct {
	T time.Time
	E scanmatch.Estimate
}

// OdoSample is an odometry estimate as kept with an event.
type OdoSample struct {
	T          time.Time
	X, Y, Yaw  float64
	Degenerate bool
}

// Event is one contact.
type Event struct {
	At time.Time // the odometry estimate that decided it
	// Turn: judged with the gyro (a turning command); else along the commanded linear direction.
	Turn bool
	// Commanded and Measured are the command (delayed by Lag, mean over Win) and the motion along it (m/s,
	// or rad/s for a turn); For is how long the stall had lasted.
	Commanded, Measured float64
	For                 time.Duration
	// CmdStart is when the gated command last became non-zero (the wheels started).
	CmdStart time.Time
	// Reason is the e-stop reason: "contact: commanded 0.20 m/s, measured 0.01 m/s for 0.3 s".
	Reason string
	// The last History of command, gyro and odometry before At.
	Cmds []CmdSample
	Gyro []GyroSample
	Odo  []OdoSample
}

// Status says what the reflex is doing.
type Status struct {
	// Judging is true when the last evaluation judged a command; Why says what it did or why not
	// ("judging", "idle: no command", "cannot judge: ...").
	Judging bool
	Why     string
	// Commanded and Measured are the last judged values (m/s, or rad/s when Turn).
	Commanded, Measured float64
	Turn                bool
	// Stalling: a stall is under way (not yet a contact, or the contact's episode).
	Stalling bool
	// Contacts counts contacts since start; Estimates the odometry estimates taken, OdoFailures the scans
	// the matcher could not use.
	Contacts, Estimates, OdoFailures uint64
	// LastOdo is the newest estimate's time (zero if none).
	LastOdo time.Time
}

// Decision is the result of one evaluation.
type Decision struct {
	Contact bool
	Event   Event
}

// Monitor is the reflex's state. Not safe for concurrent use: one goroutine (the driver's control loop)
// owns it.
type Monitor struct {
	cfg  Config
	cmds []CmdSample
	gyro []GyroSample
	odo  []Odo

	cmdStart   time.Time
	stalling   bool
	stallSince time.Time
	inContact  bool
	clearSince time.Time // the first non-stall judgement after a contact (zero: none yet)
	st         Status
}

// ErrConfig wraps a refused configuration.
var ErrConfig = errors.New("contact: configuration")

// New returns a monitor for cfg.
func New(cfg Config) (*Monitor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return &Monitor{cfg: cfg, st: Status{Why: "idle: no command"}}, nil
}

// Config returns the configuration.
func (m *Monitor) Config() Config { return m.cfg }

// keep is how far back the samples are kept: the judged span and the event's history.
func (m *Monitor) keep() time.Duration {
	return max(m.cfg.History, m.cfg.Lag+m.cfg.Settle+m.cfg.Win) + 200*time.Millisecond
}

// Command records the gated command that reached the wheels at t (every control tick).
func (m *Monitor) Command(t time.Time, v kinematics.Twist) {
	zero := v == (kinematics.Twist{})
	if n := len(m.cmds); n == 0 || m.cmds[n-1].V == (kinematics.Twist{}) {
		if !zero {
			m.cmdStart = t
		}
	}
	m.cmds = append(m.cmds, CmdSample{t, v})
	m.cmds = trim(m.cmds, t.Add(-m.keep()), func(s CmdSample) time.Time { return s.T })
}

// Gyro records a bias-corrected gyro z sample (rad/s, counter-clockwise).
func (m *Monitor) Gyro(t time.Time, wz float64) {
	if math.IsNaN(wz) || math.IsInf(wz, 0) {
		return
	}
	m.gyro = append(m.gyro, GyroSample{t, wz})
	m.gyro = trim(m.gyro, t.Add(-m.keep()), func(s GyroSample) time.Time { return s.T })
}

// OdometryFailed records a scan the matcher could not use: the poses before it are not compared with
// those after (the odometry restarts its keyframe from a prediction there).
func (m *Monitor) OdometryFailed(t time.Time) {
	m.st.OdoFailures++
	m.odo = m.odo[:0]
	m.endStall()
	m.set(false, "cannot judge: the LiDAR odometry could not use the last scan")
}

// trim drops the samples before from, keeping the last one before it (a piecewise-constant history needs
// the value at from).
func trim[S any](s []S, from time.Time, at func(S) time.Time) []S {
	i := 0
	for i+1 < len(s) && at(s[i+1]).Before(from) {
		i++
	}
	if i == 0 {
		return s
	}
	return append(s[:0], s[i:]...)
}

func (m *Monitor) set(judging bool, why string) {
	m.st.Judging, m.st.Why = judging, why
}

func (m *Monitor) endStall() {
	m.stalling, m.inContact, m.clearSince = false, false, time.Time{}
	m.st.Stalling = false
}

// Tick updates the status between estimates (every control tick): a commanded robot whose odometry has
// stopped cannot be judged.
func (m *Monitor) Tick(t time.Time) {
	cmd := m.cmdAt(t)
	if cmd == (kinematics.Twist{}) {
		if !m.st.Judging && len(m.cmds) > 0 {
			m.set(false, "idle: no command")
		}
		return
	}
	last := m.st.LastOdo
	if last.IsZero() || t.Sub(last) > m.cfg.OdoStale {
		age := "none yet"
		if !last.IsZero() {
			age = fmt.Sprintf("none for %.1f s", t.Sub(last).Seconds())
		}
		m.endStall()
		m.set(false, "cannot judge: no LiDAR odometry ("+age+"); the scan gate holds the wheels")
	}
}

// Status returns the current status.
func (m *Monitor) Status() Status { return m.st }

// cmdAt is the command in force at t (the last sample at or before t).
func (m *Monitor) cmdAt(t time.Time) kinematics.Twist {
	for i := len(m.cmds) - 1; i >= 0; i-- {
		if !m.cmds[i].T.After(t) {
			return m.cmds[i].V
		}
	}
	return kinematics.Twist{}
}

// cmdSpan returns the time-weighted mean command over [a, b] and the samples in force during it; ok is
// false when the history does not reach back to a.
func (m *Monitor) cmdSpan(a, b time.Time) (mean kinematics.Twist, in []kinematics.Twist, ok bool) {
	if len(m.cmds) == 0 || m.cmds[0].T.After(a) {
		return kinematics.Twist{}, nil, false
	}
	var sx, sy, sw, st float64
	for i, s := range m.cmds {
		end := b
		if i+1 < len(m.cmds) && m.cmds[i+1].T.Before(b) {
			end = m.cmds[i+1].T
		}
		start := s.T
		if start.Before(a) {
			start = a
		}
		if !end.After(start) {
			if !s.T.After(a) && (i+1 == len(m.cmds) || m.cmds[i+1].T.After(a)) {
				in = append(in, s.V) // in force at a even if [a, b] is a point
			}
			continue
		}
		d := end.Sub(start).Seconds()
		sx, sy, sw, st = sx+s.V.VX*d, sy+s.V.VY*d, sw+s.V.WZ*d, st+d
		in = append(in, s.V)
	}
	if st <= 0 {
		if len(in) > 0 {
			return in[len(in)-1], in, true
		}
		return kinematics.Twist{}, nil, false
	}
	return kinematics.Twist{VX: sx / st, VY: sy / st, WZ: sw / st}, in, true
}

// Odometry takes one estimate and judges the command against it (the seed's on_rf2o).
func (m *Monitor) Odometry(o Odo) Decision {
	m.st.Estimates++
	if n := len(m.odo); n > 0 && !o.T.After(m.odo[n-1].T) {
		m.odo = m.odo[:0] // out of order (a clock step): start again
	}
	m.odo = append(m.odo, o)
	m.odo = trim(m.odo, o.T.Add(-m.keep()), func(x Odo) time.Time { return x.T })
	m.st.LastOdo = o.T
	return m.judge(o.T)
}

// tolerance absorbs the jitter of scan times when a duration is compared with Win or Hold.
const tolerance = 15 * time.Millisecond

func (m *Monitor) judge(te time.Time) Decision {
	c := m.cfg
	cEnd := te.Add(-c.Lag)
	mean, _, ok := m.cmdSpan(cEnd.Add(-c.Win), cEnd)
	if !ok {
		m.endStall()
		if len(m.cmds) == 0 || m.cmdAt(te) == (kinematics.Twist{}) {
			m.set(false, "idle: no command")
		} else {
			m.set(false, "not judged: command settling")
		}
		return Decision{}
	}
	_, settle, ok := m.cmdSpan(cEnd.Add(-c.Settle), cEnd)
	lin := math.Hypot(mean.VX, mean.VY)
	if lin < 1e-9 && math.Abs(mean.WZ) < 1e-9 && m.cmdAt(te) == (kinematics.Twist{}) {
		m.endStall()
		m.set(false, "idle: no command")
		return Decision{}
	}
	ux, uy := 0.0, 0.0
	if lin > 0 {
		ux, uy = mean.VX/lin, mean.VY/lin
	}
	linSettled, angSettled := ok && lin >= c.VMin, ok && math.Abs(mean.WZ) >= c.WMin
	for _, v := range settle {
		l := math.Hypot(v.VX, v.VY)
		if l < c.VMin || (v.VX*ux+v.VY*uy) < 0.9*l { // slower, or more than ~25 degrees off the direction
			linSettled = false
		}
		if math.Abs(v.WZ) < c.WMin || v.WZ*mean.WZ <= 0 {
			angSettled = false
		}
	}
	if !linSettled && !angSettled {
		m.endStall()
		if lin < c.VMin && math.Abs(mean.WZ) < c.WMin {
			m.set(false, fmt.Sprintf("not judged: command under v_min %.2f m/s and w_min %.2f rad/s", c.VMin, c.WMin))
		} else {
			m.set(false, "not judged: command settling")
		}
		return Decision{}
	}

	stall, judged := false, false
	var why string
	var cmdV, measV float64
	turn := false
	if linSettled {
		along, reason := m.measuredAlong(te, ux, uy)
		if reason != "" {
			why = reason
		} else {
			judged = true
			cmdV, measV = lin, along
			stall = along < c.Ratio*lin
		}
	}
	if angSettled && !stall {
		w, reason := m.gyroMean(te)
		if reason != "" {
			if why == "" {
				why = reason
			}
		} else {
			judged = true
			along := w * math.Copysign(1, mean.WZ)
			if along < c.Ratio*math.Abs(mean.WZ) || !linSettled {
				cmdV, measV, turn = math.Abs(mean.WZ), along, true
			}
			if along < c.Ratio*math.Abs(mean.WZ) {
				stall = true
			}
		}
	}
	if !judged {
		m.endStall()
		m.set(false, why)
		return Decision{}
	}
	m.st.Commanded, m.st.Measured, m.st.Turn = round(cmdV), round(measV), turn
	m.set(true, "judging")
	if !stall {
		// The seed's rule: any reading that is not a stall restarts HOLD. A contact's episode ends only when
		// the motion has been back for HOLD (noise around RATIO would otherwise count one contact many times
		// in log mode).
		m.stalling, m.st.Stalling = false, false
		if m.inContact {
			if m.clearSince.IsZero() {
				m.clearSince = te
			}
			if te.Sub(m.clearSince)+tolerance >= c.Hold {
				m.inContact = false
			}
		}
		return Decision{}
	}
	m.clearSince = time.Time{}
	if !m.stalling {
		m.stalling, m.stallSince = true, te
	}
	m.st.Stalling = true
	dur := te.Sub(m.stallSince)
	if dur+tolerance < c.Hold || m.inContact {
		return Decision{}
	}
	m.inContact = true
	m.st.Contacts++
	unit := "m/s"
	if turn {
		unit = "rad/s"
	}
	ev := Event{At: te, Turn: turn, Commanded: cmdV, Measured: measV, For: dur, CmdStart: m.cmdStart,
		Reason: fmt.Sprintf("contact: commanded %.2f %s, measured %.2f %s for %.1f s", cmdV, unit, show(measV), unit, dur.Seconds())}
	from := te.Add(-c.History)
	for _, s := range m.cmds {
		if !s.T.Before(from) && !s.T.After(te) {
			ev.Cmds = append(ev.Cmds, s)
		}
	}
	for _, s := range m.gyro {
		if !s.T.Before(from) && !s.T.After(te) {
			ev.Gyro = append(ev.Gyro, s)
		}
	}
	for _, s := range m.odo {
		if !s.T.Before(from) {
			ev.Odo = append(ev.Odo, OdoSample{s.T, s.E.Pose.X, s.E.Pose.Y, s.E.Pose.Yaw, s.E.Degenerate})
		}
	}
	return Decision{Contact: true, Event: ev}
}

// measuredAlong is the odometry's mean velocity over the window ending at te, along the base-frame unit
// direction (ux, uy), or why it cannot be measured.
func (m *Monitor) measuredAlong(te time.Time, ux, uy float64) (float64, string) {
	c := m.cfg
	last := m.odo[len(m.odo)-1]
	var first *Odo
	for i := len(m.odo) - 2; i >= 0; i-- {
		if te.Sub(m.odo[i].T)+tolerance >= c.Win {
			first = &m.odo[i]
			break
		}
	}
	if first == nil || te.Sub(first.T) > c.Win+c.Win/2 {
		return 0, "cannot judge: not enough LiDAR odometry in the window"
	}
	for i := range m.odo {
		o := &m.odo[i]
		if o.T.After(first.T) && !o.E.Observable(ux, uy) {
			return 0, fmt.Sprintf("cannot judge: the LiDAR odometry cannot see motion along the command (degenerate, weak bearing %.0f deg)",
				o.E.WeakBearingDeg())
		}
	}
	d := first.E.Pose.Between(last.E.Pose)
	dt := last.T.Sub(first.T).Seconds()
	return (d.X*ux + d.Y*uy) / dt, ""
}

// gyroMean is the mean gyro z over the window ending at te, or why there is none.
func (m *Monitor) gyroMean(te time.Time) (float64, string) {
	from := te.Add(-m.cfg.Win)
	var s float64
	n := 0
	var earliest time.Time
	for _, g := range m.gyro {
		if g.T.After(from) && !g.T.After(te) {
			if n == 0 {
				earliest = g.T
			}
			s += g.WZ
			n++
		}
	}
	if n < 3 || earliest.Sub(from) > m.cfg.Win/2 {
		return 0, "cannot judge the turn: no gyro samples in the window"
	}
	return s / float64(n), ""
}

func round(v float64) float64 { return math.Round(v*1000)/1000 + 0 }

// show is v as the reason prints it: two decimals, never "-0.00".
func show(v float64) float64 {
	if math.Abs(v) < 0.005 {
		return 0
	}
	return v
}
