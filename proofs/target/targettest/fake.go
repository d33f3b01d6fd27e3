package targettest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/sim"
)

// Options shape the fake robot. The zero value is a healthy robot.
type Options struct {
	Seed uint64
	// IgnoreStop is the negative control: from each trigger on (Faulter.AtTrigger) the board keeps the last
	// wheel speed whatever it is sent, like the simulator's ignore-motor fault. Clear ends it.
	IgnoreStop bool
	// Hang names calls that block until their context ends: "estop", "enable", "reset", "kill",
	// "kill-reader", "stop-service", "start-service", "press", "state", "publisher".
	Hang []string
	// NoRespawn: a killed LiDAR reader never comes back.
	NoRespawn bool
	// Plugged: the charger is believed plugged in.
	Plugged bool
	// OtherPublishers: velocity-command publishers of other processes.
	OtherPublishers int
	// StartEnabled: the wheels are enabled at start (someone left them so).
	StartEnabled bool
	// NoDriverBack: a killed driver never comes back.
	NoDriverBack bool
	// StartEstop latches the e-stop at start with this reason.
	StartEstop string
	// NoDriver: no driver answers at all (the guard's case: nothing may be sent).
	NoDriver bool
	// DriverClockOffset is how far the driver's stamps lag this machine's clock beyond the delivery itself
	// (a wall-clock step since the driver started). Samples are still delivered at once.
	DriverClockOffset time.Duration
	// MaxLinear is the driver's max_linear (m/s); 0 means the robot's 0.35.
	MaxLinear float64
	// Floor puts the fake on the floor in this room (nil: the stand): the sim's floor physics moves the body,
	// and FollowScans streams the sim's LiDAR from its pose (fake_floor.go).
	Floor *sim.Room
	// ObstacleAt, on the floor, puts a box this far (m) ahead of the robot at each trigger (the guard's
	// negative control); 0: none.
	ObstacleAt float64
	// Contact is the driver's contact reflex mode: "" or "act", "log", "off" (fake_contact.go).
	Contact string
	// Priority ranks the velocity inputs as the driver's priority_* parameters do (indexed by motion.Input);
	// the zero value is the driver's default (manual 100, autonomous 10, cmd_vel 1). Manual below autonomous
	// is the take-over path's negative control.
	Priority [motion.NumInputs]int
}

// The stand is the sim's (its IMU rate, wheel lag, still noise and vibration fit, its kinematics) and the
// gate is the driver's (driver/motion); only the supervisor's and the service's timing is the fake's own.
const (
	imuPeriod     = time.Second / sim.IMURateHz
	scanPeriod    = 100 * time.Millisecond
	driverRestart = 600 * time.Millisecond // supervisor restarts a killed driver
	readerRespawn = 2 * time.Second        // supervisor respawns a killed reader
	readerFirst   = 300 * time.Millisecond // a new reader's first scan
	serviceStart  = time.Second
	deliveryLag   = 300 * time.Microsecond // driver stamp to the proof's receipt, as measured on the sim
)

// limits are the driver's gate limits on the robot: the code defaults with max_linear 0.35
// (config/arm_limits.yaml since 2026-10-01), and the options' priorities.
func limits(opt Options) motion.Limits {
	l := motion.DefaultLimits()
	l.MaxLinear = 0.35
	if opt.MaxLinear > 0 {
		l.MaxLinear = opt.MaxLinear
	}
	if opt.Priority != ([motion.NumInputs]int{}) {
		l.Priority = opt.Priority
	}
	return l
}

// Fake is a tiny driver-plus-board model behind the target.Target interface: the driver's own gate
// (motion.Gate: enabled, e-stop, deadman, scan gate, ramps, limits, two publishers), one mean wheel speed
// with the sim's first-order lag, and IMU samples with the sim's noise, whose gyro x/y vibration grows with
// the wheel speed. Every call first advances the model to the clock's now, so time only moves forward and
// all goroutines see one history. One mutex guards everything.
type Fake struct {
	clock clock.Clock
	opt   Options

	mu   sync.Mutex
	rng  *rand.Rand
	t    time.Time             // model time: IMU generated up to here
	gate *motion.Gate          // the current driver's gate; a restarted driver gets a new one (disabled)
	pubs [motion.NumInputs]int // our open publishers on the current driver, per input

	driverUp      bool
	driverPid     int
	driverBackAt  time.Time // zero: not scheduled
	serviceUp     bool
	supervisorPid int
	readerUp      bool
	readerPid     int
	readerStart   time.Time
	readerBackAt  time.Time
	lastScan      time.Time
	nextPid       int

	ignoring    bool
	boardTarget float64 // rps the board was last told (mean |rps|)
	wheel       float64 // actual mean |rps|

	recs     []*fakeRec
	calls    []string
	maxWheel float64 // the highest wheel speed ever, for tests

	floor *floorModel  // nil on the stand
	ct    *fakeContact // the current driver's contact reflex (fake_contact.go)
}

// NewFake builds a fake robot on clock.
func NewFake(clock clock.Clock, opt Options) *Fake {
	now := clock.Now()
	f := &Fake{clock: clock, opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0xfa4e)), t: now,
		driverUp: !opt.NoDriver, serviceUp: !opt.NoDriver, readerUp: true, readerStart: now.Add(-10 * time.Second),
		lastScan: now, nextPid: 1000}
	f.newDriver()
	if opt.Floor != nil {
		f.floor = newFloorModel(opt.Seed, opt.Floor)
	}
	if opt.StartEnabled {
		f.gate.Enable(true)
	}
	if opt.StartEstop != "" {
		f.gate.Trip(opt.StartEstop)
	}
	f.supervisorPid, f.driverPid, f.readerPid = f.pid(), f.pid(), f.pid()
	return f
}

// newDriver gives a (re)started driver its gate: disabled, no command, the scans it will see.
func (f *Fake) newDriver() {
	f.gate = motion.NewGate(limits(f.opt))
	f.gate.Sensed(f.lastScan)
	f.ct = newFakeContact(f.opt.Contact, f.t)
}

func (f *Fake) pid() int { f.nextPid += 7; return f.nextPid }

// advance steps the model to the clock's now. f.mu must be held.
func (f *Fake) advance() time.Time {
	now := f.clock.Now()
	for !f.t.Add(imuPeriod).After(now) {
		f.t = f.t.Add(imuPeriod)
		f.step(f.t)
	}
	return now
}

// step advances one IMU period ending at ts.
func (f *Fake) step(ts time.Time) {
	if f.serviceUp && !f.driverUp && !f.driverBackAt.IsZero() && !ts.Before(f.driverBackAt) {
		f.driverUp, f.driverPid, f.driverBackAt = true, f.pid(), time.Time{}
		f.newDriver()
	}
	if !f.readerUp && !f.readerBackAt.IsZero() && !ts.Before(f.readerBackAt) {
		f.readerUp, f.readerPid, f.readerStart, f.readerBackAt = true, f.pid(), ts, time.Time{}
	}
	scanned := false
	if f.readerUp && f.serviceUp && ts.Sub(f.readerStart) >= readerFirst && ts.Sub(f.lastScan) >= scanPeriod {
		f.lastScan = ts
		f.gate.Sensed(ts)
		scanned = true
	}
	// The driver's gate decides the command; a dead driver's supervisor (or stop-motors) wrote a stop frame.
	rps := 0.0
	var cmd [3]float64 // the gate's command (zero with the driver gone: the supervisor's stop frame)
	if f.driverUp {
		v := f.gate.Step(ts, imuPeriod)
		cmd = [3]float64{v.VX, v.VY, v.WZ}
		rps = sim.MeanAbsRPS(sim.WheelRPS(cmd))
	}
	if !f.ignoring {
		f.boardTarget = rps
	}
	h := imuPeriod.Seconds()
	wz := 0.0
	if f.floor != nil {
		f.wheel, wz = f.floor.step(cmd, f.ignoring, imuPeriod)
	} else {
		f.wheel += (f.boardTarget - f.wheel) * (1 - math.Exp(-h/sim.WheelTau))
	}
	f.maxWheel = math.Max(f.maxWheel, f.wheel)
	sd := math.Hypot(sim.GyroStillStd, sim.VibrationStd(f.wheel))
	g := [3]float64{sd * f.rng.NormFloat64(), sd * f.rng.NormFloat64(), wz + sim.GyroZStd*f.rng.NormFloat64()}
	f.contactStep(ts, cmd, g[2], scanned)
	for _, r := range f.recs {
		if r.board || (f.driverUp && r.pid == f.driverPid) {
			src := imu.SourceDriver
			switch {
			case r.board && f.serviceUp:
				src = imu.SourceRaw // the supervisor's pass-through
			case r.board:
				src = imu.SourceDirect // the port, free while the service is stopped
			}
			x := imu.Sample{At: ts, Gyro: g, Source: src, Where: "fake.raw"}
			if src == imu.SourceDriver {
				x.Stamp = ts.Round(0).Add(-deliveryLag - f.opt.DriverClockOffset)
			}
			r.samples = append(r.samples, x)
		} else if r.err == nil {
			r.err = errors.New("IMU stream ended: driver gone")
		}
	}
}

func (f *Fake) hangs(name string) bool {
	for _, h := range f.opt.Hang {
		if h == name {
			return true
		}
	}
	return false
}

// enter records the call, hangs it if asked, and advances the model. On success f.mu is held.
func (f *Fake) enter(ctx context.Context, name string) error {
	f.mu.Lock()
	f.advance()
	f.calls = append(f.calls, name)
	hang := f.hangs(name)
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return fmt.Errorf("fake %s: %w", name, ctx.Err())
	}
	f.mu.Lock()
	f.advance()
	return nil
}

var errGone = errors.New("driver not answering (connection refused)")

// call enters the call name (see enter) and runs do under the model's lock, or refuses with errGone when no
// driver answers.
func call[T any](f *Fake, ctx context.Context, name string, do func() (T, error)) (T, error) {
	var zero T
	if err := f.enter(ctx, name); err != nil {
		return zero, err
	}
	defer f.mu.Unlock()
	if !f.driverUp {
		return zero, errGone
	}
	return do()
}

// driverCall is call for a call that returns only an error.
func (f *Fake) driverCall(ctx context.Context, name string, do func() error) error {
	_, err := call(f, ctx, name, func() (struct{}, error) { return struct{}{}, do() })
	return err
}

// Describe names the fake.
func (f *Fake) Describe() string { return "fake robot (targettest)" }

type fakeState struct {
	Enabled    bool        `json:"enabled"`
	Estop      *string     `json:"estop"`
	Blocked    *string     `json:"blocked"`
	Plugged    bool        `json:"plugged"`
	ScanAge    *float64    `json:"scan_age"`
	Publishers int         `json:"publishers"`
	Pids       target.Pids `json:"pids"`
	Source     string      `json:"source"`
	WheelRPS   float64     `json:"fake_wheel_rps"`
	UptimeS    float64     `json:"uptime_s"`
	// Contact is the driver's contact reflex (fake_contact.go).
	Contact *api.ContactState `json:"contact,omitempty"`
}

// State reports the model's state.
func (f *Fake) State(ctx context.Context) (target.State, error) {
	return call(f, ctx, "state", func() (target.State, error) {
		now := f.t
		gs := f.gate.Status()
		st := target.State{At: f.clock.Now(), Enabled: gs.Enabled, Estop: gs.EStop, Blocked: f.gate.BlockReason(now),
			Plugged: f.opt.Plugged, ScanAge: now.Sub(f.lastScan).Seconds(), Publishers: f.publishers(), Source: f.gate.Driving(now),
			Pids: target.Pids{Supervisor: f.supervisorPid, Driver: f.driverPid, LidarReader: f.readerPid}, Config: f.config()}
		// The driver's report of its last wheel frame: the gate's velocity, as the real driver reports it.
		cur := f.gate.Current()
		st.BodyVel, st.WheelRPS = [3]float64{cur.VX, cur.VY, cur.WZ}, kinematics.WheelRPS(cur, kinematics.DefaultGeometry())
		if !f.readerUp {
			st.Pids.LidarReader = 0
		}
		fs := fakeState{Enabled: st.Enabled, Plugged: st.Plugged, ScanAge: &st.ScanAge, Publishers: st.Publishers, Source: st.Source,
			Pids: st.Pids, WheelRPS: math.Round(f.wheel*1000) / 1000, UptimeS: f.uptime(now), Contact: f.contactState(now)}
		if st.Estop != "" {
			fs.Estop = &st.Estop
		}
		if st.Blocked != "" {
			fs.Blocked = &st.Blocked
		}
		st.Raw, _ = json.Marshal(fs)
		return st, nil
	})
}

// config is the configuration summary the fake's state record carries.
func (f *Fake) config() api.ConfigSummary {
	l := f.gate.Limits()
	return api.ConfigSummary{MaxLinear: l.MaxLinear, MaxAngular: l.MaxAngular, MaxAccelLinear: l.MaxAccelLinear,
		MaxAccelAngular: l.MaxAccelAngular, CmdTimeoutS: l.CmdTimeout.Seconds(), ScanTimeoutS: l.ScanTimeout.Seconds()}
}

// Config returns the configuration summary as the record's JSON.
func (f *Fake) Config(ctx context.Context) (json.RawMessage, error) {
	return json.Marshal(f.config())
}

type fakeRec struct {
	f       *Fake
	board   bool
	pid     int
	samples []imu.Sample
	err     error
	closed  bool
}

func (r *fakeRec) Samples() []imu.Sample {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.advance()
	return append([]imu.Sample(nil), r.samples...)
}

func (r *fakeRec) Err() error {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.advance()
	if r.closed {
		return nil
	}
	return r.err
}

func (r *fakeRec) Close() error {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.closed = true
	for i, x := range r.f.recs {
		if x == r {
			r.f.recs = append(r.f.recs[:i], r.f.recs[i+1:]...)
			break
		}
	}
	return nil
}

// RecordIMU records the driver's stream; it ends when the driver dies.
func (f *Fake) RecordIMU(ctx context.Context) (imu.Recording, error) {
	return call(f, ctx, "record-imu", func() (imu.Recording, error) {
		r := &fakeRec{f: f, pid: f.driverPid}
		f.recs = append(f.recs, r)
		return r, nil
	})
}

// RecordBoardIMU records the board's IMU, which the fake always has.
func (f *Fake) RecordBoardIMU(ctx context.Context) (imu.Recording, error) {
	if err := f.enter(ctx, "record-board-imu"); err != nil {
		return nil, err
	}
	defer f.mu.Unlock()
	r := &fakeRec{f: f, board: true}
	f.recs = append(f.recs, r)
	return r, nil
}

type fakePub struct {
	f         *Fake
	in        motion.Input
	connected bool
	pid       int
	closed    bool
}

// Publisher opens a publisher on input of the current driver; the driver's gate arbitrates the inputs.
func (f *Fake) Publisher(ctx context.Context, input string) (target.Publisher, error) {
	in, err := motion.ParseInput(input)
	if err != nil {
		return nil, err
	}
	return call(f, ctx, "publisher", func() (target.Publisher, error) {
		p := &fakePub{f: f, in: in, connected: true, pid: f.driverPid}
		f.connect(in)
		return p, nil
	})
}

// connect counts a publisher on in; two on one input trip the e-stop, as the driver's two-publisher rule
// does (the other processes' publishers are on cmd_vel).
func (f *Fake) connect(in motion.Input) {
	f.pubs[in]++
	n := f.pubs[in]
	if in == motion.InputCmdVel {
		n += f.opt.OtherPublishers
	}
	f.gate.SetPublishers(in, n)
}

// publishers counts every velocity-command publisher on the current driver.
func (f *Fake) publishers() int {
	n := f.opt.OtherPublishers
	for _, k := range f.pubs {
		n += k
	}
	return n
}

func (p *fakePub) Send(ctx context.Context, tw kinematics.Twist) error {
	f := p.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance()
	if p.closed {
		return errors.New("publisher closed")
	}
	if p.connected && p.pid != f.driverPid {
		p.connected = false // the driver it talked to is gone
	}
	if !f.driverUp {
		return errGone
	}
	if !p.connected {
		p.connected, p.pid = true, f.driverPid
		f.connect(p.in)
	}
	// A refused command (absurd) is the gate's to count; the fake's publisher reports nothing, as the
	// stream does not.
	_ = f.gate.SetCmd(p.in, kinematics.Twist{VX: tw.VX, VY: tw.VY, WZ: tw.WZ}, f.t, motion.SourceSoftware)
	call := fmt.Sprintf("cmd %.2f %.2f %.2f", tw.VX, tw.VY, tw.WZ)
	if p.in != motion.InputCmdVel {
		call += " on " + p.in.String()
	}
	f.calls = append(f.calls, call)
	return nil
}

func (p *fakePub) Close() error {
	f := p.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if !p.closed && p.connected && p.pid == f.driverPid && f.driverUp {
		f.pubs[p.in]--
	}
	p.closed = true
	return nil
}

// Estop latches the e-stop.
func (f *Fake) Estop(ctx context.Context) error {
	return f.driverCall(ctx, "estop", func() error {
		f.gate.Trip("estop request")
		return nil
	})
}

// Enable enables or disables; enable is refused while latched.
func (f *Fake) Enable(ctx context.Context, on bool) error {
	name := "disable"
	if on {
		name = "enable"
	}
	if f.hangs("enable") {
		name = "enable" // Hang "enable" hangs both directions
	}
	return f.driverCall(ctx, name, func() error {
		if err := f.gate.Enable(on); err != nil {
			return fmt.Errorf("refused: %w", err)
		}
		return nil
	})
}

// Reset clears the latch.
func (f *Fake) Reset(ctx context.Context) error {
	return f.driverCall(ctx, "reset", func() error {
		f.gate.Reset()
		return nil
	})
}

// KillDriver kills the driver; the supervisor stops the wheels at once and restarts it disabled.
func (f *Fake) KillDriver(ctx context.Context) (int, error) {
	return call(f, ctx, "kill", func() (int, error) {
		pid := f.driverPid
		f.driverUp, f.pubs = false, [motion.NumInputs]int{}
		if !f.opt.NoDriverBack {
			f.driverBackAt = f.t.Add(driverRestart)
		}
		return pid, nil
	})
}

// KillLidarReader kills the reader; the supervisor respawns it about 2 s later.
func (f *Fake) KillLidarReader(ctx context.Context) (int, error) {
	if err := f.enter(ctx, "kill-reader"); err != nil {
		return 0, err
	}
	defer f.mu.Unlock()
	if !f.readerUp {
		return 0, errors.New("no LiDAR reader running")
	}
	pid := f.readerPid
	f.readerUp = false
	if !f.opt.NoRespawn {
		f.readerBackAt = f.t.Add(readerRespawn)
	}
	return pid, nil
}

// StopService stops everything; stop-motors zeroes the wheels.
func (f *Fake) StopService(ctx context.Context) error {
	if err := f.enter(ctx, "stop-service"); err != nil {
		return err
	}
	defer f.mu.Unlock()
	f.serviceUp, f.driverUp, f.readerUp, f.pubs = false, false, false, [motion.NumInputs]int{}
	f.driverBackAt, f.readerBackAt = time.Time{}, time.Time{}
	return nil
}

// StartService starts it again; the driver answers about a second later.
func (f *Fake) StartService(ctx context.Context) error {
	if err := f.enter(ctx, "start-service"); err != nil {
		return err
	}
	defer f.mu.Unlock()
	if f.serviceUp {
		return nil
	}
	f.serviceUp, f.supervisorPid = true, f.pid()
	f.driverBackAt = f.t.Add(serviceStart)
	f.readerBackAt = f.t.Add(serviceStart)
	return nil
}

// PressButton presses Cross: the driver trips on the first frame, 20 ms later.
func (f *Fake) PressButton(ctx context.Context, prompt func(string)) (time.Time, string, error) {
	if err := f.enter(ctx, "press"); err != nil {
		return time.Time{}, "", err
	}
	defer f.mu.Unlock()
	if !f.driverUp {
		return time.Time{}, "", errGone
	}
	f.gate.Trip("gamepad button 0x0100")
	return f.t, "the fake's press", nil
}

// Close does nothing: the fake owns no processes.
func (f *Fake) Close() error { return nil }

// AtTrigger starts ignoring stops when Options.IgnoreStop is set.
func (f *Fake) AtTrigger(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance()
	if f.opt.IgnoreStop {
		f.ignoring = true
	}
	if f.floor != nil && f.opt.ObstacleAt > 0 {
		f.floor.obstacle(f.opt.ObstacleAt)
	}
	return nil
}

// Clear ends the fault.
func (f *Fake) Clear(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance()
	f.ignoring = false
	return nil
}

// FaultName names the fault.
func (f *Fake) FaultName() string {
	switch {
	case f.opt.IgnoreStop:
		return "ignore-stop at each trigger, cleared after the judge"
	case f.opt.ObstacleAt > 0:
		return fmt.Sprintf("a box %.2f m ahead at each trigger", f.opt.ObstacleAt)
	}
	return ""
}

// read returns get() with the model advanced to now, under its lock.
func read[T any](f *Fake, get func() T) T {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.advance()
	return get()
}

// Enabled reports whether the wheels are enabled now (false also when the driver is gone).
func (f *Fake) Enabled() bool {
	return read(f, func() bool { return f.driverUp && f.gate.Status().Enabled })
}

// WheelRPS is the wheel speed now (mean |rps|).
func (f *Fake) WheelRPS() float64 { return read(f, func() float64 { return f.wheel }) }

// BoardTarget is the speed the board was last told.
func (f *Fake) BoardTarget() float64 { return read(f, func() float64 { return f.boardTarget }) }

// MaxWheel is the highest wheel speed so far.
func (f *Fake) MaxWheel() float64 { return read(f, func() float64 { return f.maxWheel }) }

// Calls lists the calls made so far, commands included.
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

var (
	_ target.Target  = (*Fake)(nil)
	_ target.Faulter = (*Fake)(nil)
)

var (
	_ target.Target       = (*Fake)(nil)
	_ target.Faulter      = (*Fake)(nil)
	_ target.ContactModer = (*Fake)(nil)
)
