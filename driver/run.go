package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/heartbeat"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/breakrule"
	"github.com/rosorin/rosorin/judge/contact"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
)

// Run is the driver process: it writes a stop frame first, serves the control socket, and runs the 50 Hz
// control loop until ctx ends (then it writes the stop frame twice and returns nil) or the board goes away
// (BoardIn ends or a BoardOut write fails: it writes a stop frame and returns the error, so the supervisor
// can reopen the port). Motion is disabled at start, always.
func Run(ctx context.Context, o Options) error {
	if o.BoardIn == nil || o.BoardOut == nil {
		return errors.New("driver: Options.BoardIn and BoardOut are required")
	}
	r, err := start(o)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

// start writes the first stop frame, checks the configuration and opens the control socket.
func start(o Options) (*loopState, error) {
	o = o.withDefaults()
	// Known state first, before anything that can fail: whatever the wheels did before this start, they stop.
	if err := writeStopNow(o.BoardOut); err != nil {
		return nil, fmt.Errorf("driver start: %w; the port is gone, the supervisor must reopen it", err)
	}
	p, err := paramsFrom(o.Config)
	if err != nil {
		return nil, fmt.Errorf("driver start: configuration: %w", err)
	}
	mode, err := contact.ParseMode(o.Contact)
	if err != nil {
		return nil, fmt.Errorf("driver start: %w", err)
	}
	// The driver's records at INFO and above also go to the socket's log topic (the bridge's /rosout).
	var tee *api.LogTee
	o.Log, tee = api.TeeLog(o.Log, "driver")
	// The durable latch (latchfile.go): a latch kept in the state directory survives the supervisor, and a
	// file that cannot be trusted latches too.
	ld := loadLatch(o.StateDir)
	supLatch := o.StartLatched
	o.StartLatched = startLatchReason(supLatch, ld)
	r := newLoopState(o, p)
	r.latchLoad = ld
	switch {
	case ld.err != nil:
		o.Log.Warn("E-STOP latched at start: the latch file cannot be trusted", "file", ld.path, "err", oneLineErr(ld.err))
		r.persisted = r.gate.Status().EStop // kept as found (evidence; a newer driver's file is not ours to rewrite)
	case ld.reason != "":
		o.Log.Warn("E-STOP latched at start from the latch file: "+ld.rec.Reason, "file", ld.path,
			"latched_at", ld.rec.Time.Format(time.RFC3339Nano), "source", ld.rec.Source, "supervisor_latch", supLatch)
		r.persisted = r.gate.Status().EStop // the file already holds this latch: not rewritten (no nesting)
	}
	if err := r.loadRunParams(); err != nil {
		o.Log.Warn("runtime parameters of the previous driver not applied", "err", err)
	}
	r.deadline = o.Clock.NewTimer()
	if r.cr, err = newContactReflex(mode, p.contact); err != nil {
		return nil, fmt.Errorf("driver start: %w", err)
	}
	r.cr.slow, r.cr.clk = o.testContactSlow, o.wall
	if o.SocketPath != "" {
		access := o.Access
		if access == nil {
			access = api.DefaultAccess(os.Getuid())
		}
		srv, err := api.Listen(o.SocketPath, r, o.Log, api.WithAccess(access), api.WithClock(o.wall))
		if err != nil {
			return nil, fmt.Errorf("driver start: %w", err)
		}
		o.Log.Info("control socket roles: " + access.Summary())
		r.tr = srv
		tee.SetSink(srv.PublishLog)
	}
	r.openStopLog(supLatch) // last: nothing after it can fail, so the log's writer is always closed by run
	return r, nil
}

// run starts the goroutines, runs the loop and tears everything down in order: stop frames first, then the
// socket, then the helpers.
func (r *loopState) run(ctx context.Context) error {
	rctx, cancel := context.WithCancel(ctx)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		readBoard(rctx, r.o.BoardIn, r.clk, r.batches, r.readerErr)
	}()
	r.out = newBoardWriter(r.o.BoardOut, r.o.wall)
	r.disk = newDiskWriter(r.log)
	r.persist = newPersister(r.log, r.out, latchPath(r.o.StateDir))
	if r.dropRunParams {
		r.persist.putParams(paramsJob{path: r.runParamsPath()})
	}
	if err := r.cr.startMatcher(); err != nil {
		r.log.Error("contact reflex: the scan matcher did not start; the reflex cannot judge", "err", err)
	}
	r.loadPlugged()
	if e := r.gate.Status().EStop; e != "" {
		r.log.Warn("E-STOP latched at start: "+e+"; motion stays off until reset (rosorin-base reset), then enable",
			"pid", os.Getpid())
	}
	r.log.Info("driver running; motion DISABLED until enable",
		"socket", r.o.SocketPath, "state_dir", r.o.StateDir, "pid", os.Getpid(),
		"max_linear", r.p.limits.MaxLinear, "max_angular", r.p.limits.MaxAngular,
		"cmd_timeout", r.p.limits.CmdTimeout, "scan_timeout", r.p.limits.ScanTimeout, "rate_hz", r.p.rateHz,
		"contact", r.cr.configured.String())

	err := r.loop(rctx)

	// Shutdown. The stop frames go out synchronously from here, not through the writer goroutine.
	close(r.done)
	writerEnded := r.out.stop(100 * time.Millisecond)
	var stopErr error
	for range 2 {
		if e := writeStopNow(r.o.BoardOut); e != nil {
			stopErr = e
		}
	}
	// Only now, with the final stop frames written (or failed), may the supervisor stop expecting ticks: the
	// teardown below can take longer than its watchdog timeout without the wheels being at risk. The same
	// write tells it whether the e-stop is latched, so the next driver keeps the latch (heartbeat.FinalWord).
	r.beat(heartbeat.FinalWord(r.gate.Status().EStop))
	// The stops still being timed are kept (as interrupted) and published before the socket closes.
	r.closeStops(r.clk.Now())
	// The latch on disk after the final stop frames: one still waiting for its stop frame is written now.
	r.checkLatch()
	if !r.persist.close(2 * time.Second) {
		r.log.Error("the state directory is stuck (fsync not returning): the e-stop latch may not be kept on disk")
	}
	if !writerEnded {
		r.log.Error("a board write is stuck in the kernel (port hung); the stop frame may not reach the board: use the power switch")
	}
	if r.tr != nil {
		r.tr.Close()
	}
	cancel()
	if !unblockReader(r.o.BoardIn) {
		r.log.Debug("board reader left to end when the port's owner closes it")
	}
	select {
	case <-readerDone:
	case <-r.o.wall.After(200 * time.Millisecond):
	}
	r.disk.close()
	r.cr.stopMatcher()
	if err == nil && stopErr != nil && ctx.Err() == nil {
		err = stopErr
	}
	if err != nil {
		r.log.Error("driver stopped", "err", err)
		return err
	}
	if stopErr != nil {
		r.log.Error("driver stopped; the final stop frames failed", "err", stopErr)
		return fmt.Errorf("driver stop: %w", stopErr)
	}
	r.log.Info("driver stopped; stop frame written twice")
	return nil
}

// loop is the one goroutine that owns the gate and all driver state.
func (r *loopState) loop(ctx context.Context) error {
	tk := r.clk.NewTicker(r.tick)
	defer tk.Stop()
	defer r.deadline.Stop()
	r.lastTick = r.clk.Now()
	r.lastStep = r.lastTick
	r.checkSource(r.lastTick)
	r.checkLatch() // a latch the driver started with that the file does not hold yet (the supervisor's)
	r.beat(beatTick)
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-r.readerErr:
			return err
		case err := <-r.out.errc:
			r.writeErrors++
			return err
		case b := <-r.batches:
			r.onBoard(b)
		case q := <-r.reqs:
			r.onRequest(q)
		case m := <-r.cr.results:
			r.onContactMatch(m)
		case <-r.deadline.C():
			r.onDeadline(r.clk.Now())
		case <-tk.C():
			r.onTick(r.clk.Now())
			// After the tick, from this goroutine: a loop stuck anywhere (in a tick, a request, a board batch)
			// stops beating, and the supervisor's watchdog stops the wheels.
			r.beat(beatTick)
		}
		// After every event: a velocity that changed (a trip, a disable, a refusal) may be a stop to time.
		r.stopsAfterEvent()
		// After every event, whatever latched or reset the gate (a request, a gamepad frame or hold, a trip in
		// a tick, the contact reflex): the persister keeps the file in step, off this goroutine.
		r.checkLatch()
	}
}

// checkLatch hands a change of the gate's latch to the persister: latched with the sequence number of the last
// stop frame queued (the file is written once that frame reached the port), or cleared.
func (r *loopState) checkLatch() {
	e := r.gate.Status().EStop
	if e == r.persisted {
		return
	}
	r.persisted = e
	if r.persist != nil {
		r.persist.putLatch(latchJobFor(e, r.lastStopSeq, r.wall(r.clk.Now())))
	}
}

func latchPath(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, LatchFileName)
}

// onTick is one control tick (chapter 11 control()): publisher rule, gamepad locks, gate step, scan gate log,
// odometry, gyro stillness, wheel frame on change or every 0.2 s, state record at 10 Hz, board silence.
func (r *loopState) onTick(now time.Time) {
	dt := now.Sub(r.lastTick)
	r.lastTick = now
	r.jitter.add(dt, r.tick)

	for in, n := range r.publisherCounts(now) {
		input := motion.Input(in)
		if n > 1 {
			first := r.gate.Status().EStop == ""
			r.gate.SetPublishers(input, n)
			reason := motion.PublishersReason(input)
			if first {
				r.log.Warn(reason, "input", input.String(), "publishers", r.publisherList(now))
			}
			r.afterTrip(reason, first)
		} else {
			r.gate.SetPublishers(input, n)
		}
	}

	pr := r.pad.Tick(now, r.gate.Status())
	r.applyPad(pr, now)

	v := r.gate.Step(now, now.Sub(r.lastStep))
	r.lastStep = now
	r.checkSource(now)
	r.armDeadline(now)
	r.contactTick(now, v)
	r.logScanGate(now)
	od := r.odom.Update(now, v)
	r.publish(api.TopicOdom, r.odomMsg(od))
	r.bias.SetCommandedStill(v.IsZero(), now)
	r.charger.SetWheels(r.gate.Status().Enabled, now)

	rps := kinematics.WheelRPS(v, r.p.geom)
	if rps != r.lastRPS || !r.haveWrite || now.Sub(r.lastWrite) >= r.refresh {
		r.writeWheels(rps, now)
	}

	r.checkBoardSilence(now)
	r.stopCheck(now)
	r.pollStops(now)
	if now.Sub(r.lastState) >= r.statePeriod {
		r.lastState = now
		r.publish(api.TopicState, r.state(now))
	}
}

// onDeadline runs the gate at one of its time-driven instants (the deadman, a hand-over, the scan gate), between
// ticks: the wheel frame changes now instead of at the next tick. The odometry integrates the velocity the
// wheels had up to now; the next tick integrates the new one.
func (r *loopState) onDeadline(now time.Time) {
	r.armedFor = time.Time{}
	r.odom.Update(now, r.gate.Current())
	v := r.gate.Step(now, now.Sub(r.lastStep))
	r.lastStep = now
	if rps := kinematics.WheelRPS(v, r.p.geom); rps != r.lastRPS {
		r.writeWheels(rps, now)
	}
	r.stopCheck(now)
	r.logScanGate(now)
	r.checkSource(now)
	r.armDeadline(now)
}

// afterCommand follows a change of the gate's commands (a command, a refusal, an enable): a hand-over to a
// higher input shows at once, and the deadline moves with the last command.
func (r *loopState) afterCommand(now time.Time) {
	r.checkSource(now)
	r.armDeadline(now)
}

// armDeadline arms the deadline timer for the gate's next time-driven change after now.
func (r *loopState) armDeadline(now time.Time) {
	// The armed instant has come but its firing is not handled yet (the loop took another event first, a scan
	// arrival, say): handle it now. Re-arming past it would leave its change (the deadman's stop) to the next
	// tick, up to 20 ms late (TestLoopDeadlineDueBeforeItsFiring).
	if !r.armedFor.IsZero() && !now.Before(r.armedFor) {
		r.onDeadline(now) // re-arms for the next instant
		return
	}
	next := r.gate.NextDeadline(now)
	if next.Equal(r.armedFor) {
		return
	}
	r.armedFor = next
	if next.IsZero() {
		r.deadline.Stop()
		return
	}
	r.deadline.Reset(next.Sub(now))
}

// checkSource logs and publishes a hand-over of velocity arbitration (api.TopicSource), once per change.
func (r *loopState) checkSource(now time.Time) {
	src := r.gate.Driving(now)
	if src == r.source {
		return
	}
	prev := r.source
	if prev == "" {
		prev = motion.SourceNone // the first check, at start
	}
	r.source = src
	ch := &api.SourceChange{Stamp: r.wall(now), Source: src, Previous: prev}
	if in, err := motion.ParseInput(prev); err == nil && prev != motion.SourceNone {
		if at, ok := r.gate.LastCommand(in); ok {
			a := now.Sub(at).Seconds()
			ch.PreviousCmdAgeS = &a
		}
	}
	r.publish(api.TopicSource, ch)
	if prev == src {
		return // the start: published for the latched topic, nothing handed over
	}
	args := []any{"from", prev, "to", src}
	if ch.PreviousCmdAgeS != nil {
		args = append(args, "from_cmd_age_ms", round3(*ch.PreviousCmdAgeS*1000))
	}
	r.log.Info("velocity source: "+src+" (was "+prev+")", args...)
}

// writeWheels encodes and queues a wheel frame. An encoder refusal (non-finite or over board.MaxRPS: a
// configuration the gate's limits should make impossible) writes the stop frame instead and is counted.
func (r *loopState) writeWheels(rps [4]float64, now time.Time) {
	f, err := board.EncodeWheelRPS(rps)
	if err != nil {
		r.encodeErrors++
		if r.encodeErrors == 1 || r.encodeErrors%100 == 0 {
			r.log.Error("motor frame refused by the encoder; stop frame written instead", "rps", rps, "err", err,
				"count", r.encodeErrors)
		}
		r.writeStop(now)
		return
	}
	r.out.send(f)
	r.motorFrames++
	r.lastRPS, r.lastWrite, r.haveWrite = rps, now, true
}

// writeStop queues the stop frame at once (trips, disable, refused commands).
func (r *loopState) writeStop(now time.Time) {
	r.lastStopSeq = r.out.send(board.StopFrame())
	r.stopFrames++
	r.lastRPS, r.lastWrite, r.haveWrite = [4]float64{}, now, true
}

// trip latches the e-stop with reason and writes the stop frame at once, not at the next tick.
func (r *loopState) trip(reason string) {
	first := r.gate.Trip(reason)
	r.afterTrip(reason, first)
}

// afterTrip does what every trip does after Gate.Trip: stop frame now, gamepad locked, one log line.
func (r *loopState) afterTrip(reason string, first bool) {
	now := r.clk.Now()
	if first || r.lastRPS != ([4]float64{}) {
		r.writeStop(now)
	}
	r.pad.Lock()
	if first {
		r.log.Warn("E-STOP latched: " + reason)
	}
}

// logScanGate logs the scan gate's hold and release once each way (seed: two call sites on purpose).
func (r *loopState) logScanGate(now time.Time) {
	blocked := r.gate.BlockReason(now) == motion.BlockNoScan
	if blocked == r.scanBlocked {
		return
	}
	r.scanBlocked = blocked
	if blocked {
		age := "none since start"
		if snap := r.gate.Snapshot(now); snap.ScanAge != nil {
			age = fmt.Sprintf("%.2f", snap.ScanAge.Seconds())
		}
		r.log.Warn(fmt.Sprintf("wheels held: no LiDAR scan for %s s while commanded", age))
	} else {
		r.log.Info("LiDAR scan back: wheels released")
	}
}

// checkBoardSilence logs loudly, once each way, when no board frame arrived for BoardSilentAfter, and latches
// the e-stop when a board that had been talking falls silent.
//
// A board that stops talking has reset its firmware, hung, or lost its USB link, and the driver cannot tell
// which. After a firmware reset the board starts with its wheels still and obeys the next motor frame: if the
// driver went on refreshing the old wheel speed, the wheels would jump back to full speed with no ramp and
// no enable (issue 34). So the silence trips the gate: the stop frame goes out at once, and the latch holds
// when the frames return, until a reset and an enable (ISO 3691-4: no restart after a power interruption
// without a deliberate act). A board that never sent a frame since the start does not trip: motion is
// disabled at start anyway, and the silence is logged.
func (r *loopState) checkBoardSilence(now time.Time) {
	silent, age := r.boardSilent(now)
	if silent != r.silentLogged {
		r.silentLogged = silent
		if silent {
			r.log.Error(silentWarning(age))
		} else {
			r.log.Info("board frames back", "after_s", round2(age.Seconds()))
		}
	}
	if !silent {
		r.silentTripped = false
	} else if r.hasFrame && !r.silentTripped && !breakrule.On(breakrule.BoardResume) {
		r.silentTripped = true
		r.trip(boardSilentReason(age))
	}
}

// BoardSilentAfter: the board streams IMU at about 110 Hz, so 0.5 s without a frame is a dead link or hung
// firmware, not a gap.
const BoardSilentAfter = 500 * time.Millisecond

func (r *loopState) boardSilent(now time.Time) (bool, time.Duration) {
	ref := r.start
	if r.hasFrame {
		ref = r.lastFrameAt
	}
	age := now.Sub(ref)
	return age > BoardSilentAfter, age
}

// boardSilentReason is the e-stop reason of a board that fell silent (latchSource knows it as "board").
func boardSilentReason(age time.Duration) string {
	return fmt.Sprintf("board silent for %.1f s (firmware reset, hang or USB gone): the wheels' state is unknown; reset, then enable",
		age.Seconds())
}

func silentWarning(age time.Duration) string {
	return fmt.Sprintf("board silent for %.1f s: the driver CANNOT stop the wheels (USB gone or firmware hung); use the power switch",
		age.Seconds())
}

func (r *loopState) publish(topic string, msg any) {
	if r.tr != nil {
		r.tr.Publish(topic, msg)
	}
}

func round2(v float64) float64 { return float64(int64(v*100+sign(v)*0.5)) / 100 }

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}
