package sim

import (
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
)

// core owns all mutable simulation state: the physics, the noise models, both devices and the fault
// switches. Only its goroutine touches it; others send it closures (Sim.do) or motor commands.
type core struct {
	s    *Sim
	phys *Physics
	imu  *IMUModel
	bat  *BatteryModel
	lid  *LidarModel

	start [3]float64 // the pose at the sim's start: where home puts the robot back

	board     *port
	boardGen  uint64
	boardBack time.Time // when a dropped board returns (zero: present)
	lidar     *port
	lidarBack time.Time

	hang, ignoreMotor, lidarSilent, pad bool
	obstacle                            bool          // the obstacle fault's box is in the room
	flakyK, flakyStops                  int           // flaky-stop: ignore every K-th stop; stops counted so far
	flakyHeld                           bool          // flaky-stop: a stop was ignored and the wheels are held turning
	stopLag                             time.Duration // stop-lag: how late a stop is applied (0 = at once)
	lagAt                               time.Time     // stop-lag: when the pending stop is applied (zero: none)
	bootEnd                             time.Time     // board-reset: the end of the last boot; frames read before it are lost
	booting                             bool          // board-reset: the firmware is booting (until bootEnd)
	wear                                Wear          // wear-brake: the law in effect (Rate 0: not wearing)
	wearBase                            float64       // wear-brake: the factor when the wear started
	wearStops                           int           // wear-brake: stops since the wear started
	wearFrom                            time.Time     // wear-brake: when the wear started (per-minute wear)
	fromBoardRate                       float64
	corruptRng                          *rand.Rand
	holdMask                            uint16
	holdFrames                          int
	sticks                              [4]int8 // LX, LY, RX, RY in every gamepad report until changed
	keys                                []board.Key
	batMV                               uint16

	last, nextIMU, nextBattery, nextPad time.Time
	nextTruth                           time.Time
	lastBattery                         time.Time
	revStart                            time.Time
	pktK                                int
	scheduled                           []scheduledFault

	st     Stats
	out    []byte // frames of one tick, written at once
	lidOut []byte
	lidPkt PacketWriter // c.lid's packets on the wire
}

type scheduledFault struct {
	at time.Time
	f  Fault
}

func newCore(s *Sim, now time.Time) *core {
	seed := s.cfg.Seed
	c := &core{
		s:          s,
		phys:       NewPhysics(s.kind, s.room),
		imu:        NewIMUModel(seed),
		bat:        NewBatteryModel(seed),
		lid:        NewLidarModel(seed, s.room),
		corruptRng: rand.New(rand.NewPCG(uint64(seed), 0xfb0a4d)),
		last:       now,
		nextIMU:    now,
		revStart:   now,
	}
	c.lidPkt.Model = c.lid
	if s.kind == Stand {
		c.phys.Pose = s.room.Start // the stand stands in the room: its LiDAR sees it
	}
	c.start = c.phys.Pose
	c.nextBattery = now.Add(BatteryPeriod / 2)
	c.nextPad = now
	c.nextTruth = now
	c.lastBattery = now
	c.batMV = c.bat.Sample(0, 0)
	return c
}

func (c *core) run() {
	s := c.s
	defer s.wg.Done()
	tick := s.clk.NewTicker(time.Second / IMURateHz)
	defer tick.Stop()
	defer c.shutdown()
	for {
		select {
		case <-s.ctx.Done():
			return
		case f := <-s.cmds:
			f(c)
		case m := <-s.motor:
			c.motorFrame(m)
		case now := <-tick.C():
			c.tick(now)
		}
	}
}

func (c *core) shutdown() {
	if c.board != nil {
		c.board.Close()
		c.board = nil
	}
	if c.lidar != nil {
		c.lidar.Close()
		c.lidar = nil
	}
	c.s.hang.set(false)
}

// motorFrame handles a motor frame the board's reader decoded, read at m.t.
func (c *core) motorFrame(m motorCmd) {
	// Bring the physics up to the frame's arrival first: a frame that waited while this goroutine was
	// descheduled must not act on the time before it arrived.
	if m.t.After(c.last) {
		c.tick(m.t)
	}
	if m.t.Before(c.bootEnd) {
		// board-reset: read before the firmware had booted (during the boot, or before the reset and lost
		// with the firmware's RAM): never obeyed, not even later.
		c.st.MotorIgnored++
		return
	}
	c.applyMotor(m.cmd)
}

// boardReset is the board-reset fault: the firmware restarts with its USB port open. The motor driver
// comes up with zero targets (the wheels slow down by the physics), the firmware's state is gone (a held
// button, pending key frames, a pending lagged stop, a hang), and until now+boot it neither obeys what it
// is sent nor sends anything; tick brings the streams back as after a power-up.
func (c *core) boardReset(now time.Time, boot time.Duration) {
	c.setTarget([4]float64{})
	c.lagAt, c.flakyHeld = time.Time{}, false
	c.holdMask, c.holdFrames = 0, 0
	c.keys = c.keys[:0]
	c.hang = false
	c.s.hang.set(false)
	if end := now.Add(boot); end.After(c.bootEnd) {
		c.bootEnd = end
	}
	c.booting = true
}

// applyMotor obeys a motor frame like the firmware: no range check on the wire, no watchdog. Ids >= 4
// address no wheel; non-finite speeds are not applied (what the firmware does with them is unknown).
func (c *core) applyMotor(mc board.MotorCommand) {
	if c.ignoreMotor {
		c.st.MotorIgnored++
		return
	}
	next, odd := motorTargets(c.phys.Target, mc)
	if c.flakyIgnores(next) {
		c.st.MotorIgnored++
		return
	}
	if c.lagStop(next) {
		return
	}
	c.setTarget(next)
	if odd {
		c.st.MotorBad++
	}
	if mc.Kind != 0xff {
		c.st.MotorApplied++
	}
}

// motorTargets is what the wheels' targets become after the frame mc, and whether it was odd.
func motorTargets(cur [4]float64, mc board.MotorCommand) (next [4]float64, odd bool) {
	next = cur
	switch mc.Kind {
	case board.MotorSetMany, board.MotorSetOne:
		for _, sp := range mc.Speeds {
			v := float64(sp.RPS)
			if sp.ID >= 4 || math.IsNaN(v) || math.IsInf(v, 0) {
				odd = true
				continue
			}
			next[sp.ID] = math.Max(-MaxWheelRPS, math.Min(MaxWheelRPS, v))
		}
	case board.MotorStopOne, board.MotorStopMask:
		for i := range 4 {
			if mc.Mask&(1<<i) != 0 {
				next[i] = 0
			}
		}
	default:
		odd = true
	}
	return next, odd
}

// flakyIgnores is the flaky-stop fault: a stop is a motor frame that takes the wheels' targets from
// turning (any non-zero) to all zero. Stops are counted from the fault's start; the K-th, 2K-th, ... is
// ignored, and so is every frame after it that leaves all targets zero, until a frame commands motion again
// (the driver's repeated stop frames would otherwise stop the wheels a tick later). K = 0 is off.
func (c *core) flakyIgnores(next [4]float64) bool {
	if c.flakyK <= 0 {
		return false
	}
	if next != ([4]float64{}) {
		c.flakyHeld = false
		return false
	}
	if c.flakyHeld {
		return true
	}
	if c.phys.Target == ([4]float64{}) {
		return false // already still: not a stop
	}
	c.flakyStops++
	if c.flakyStops%c.flakyK != 0 {
		return false
	}
	c.flakyHeld = true
	c.st.FlakyStops++
	return true
}

// lagStop is the stop-lag fault: a stop (the targets from turning to all zero) is held until stopLag after
// it arrived, with the zero frames after it; tick applies it then. A frame commanding motion cancels it.
func (c *core) lagStop(next [4]float64) bool {
	if next != ([4]float64{}) {
		c.lagAt = time.Time{}
		return false
	}
	if c.stopLag <= 0 || c.phys.Target == ([4]float64{}) {
		return false
	}
	if c.lagAt.IsZero() {
		c.lagAt = c.last.Add(c.stopLag)
	}
	return true
}

func (c *core) tick(now time.Time) {
	if !c.lagAt.IsZero() && !now.Before(c.lagAt) {
		c.setTarget([4]float64{})
		c.lagAt = time.Time{}
	}
	c.wearTick(now)
	if c.booting && !now.Before(c.bootEnd) {
		// board-reset: booted. The streams start as after a power-up (newCore): IMU at once, the first
		// battery report half a period later, the gamepad reports from now.
		c.booting = false
		c.nextBattery, c.nextPad = now.Add(BatteryPeriod/2), now
		c.event(now, "board booted")
	}
	const period = time.Second / IMURateHz
	// The board samples its IMU on its own clock: emit every sample that is due, so a sim starved of CPU
	// for a while catches up with a burst and keeps ~110 Hz on average. After a long stall (suspended
	// process) the missed time is stepped without samples instead of flooding the port.
	if lag := now.Sub(c.nextIMU); lag > maxCatchUp {
		gap := lag - period
		c.stepPhysics(gap)
		c.nextIMU = c.nextIMU.Add(gap)
		c.st.IMUSkipped += uint64(gap / period)
	}
	c.out = c.out[:0]
	nIMU, nBat, nPad, nKey := 0, 0, 0, 0
	for !c.nextIMU.After(now) {
		c.phys.Step(period)
		r := c.imu.Sample(period, c.phys)
		c.out = append(c.out, board.EncodeIMU(board.IMU{
			Accel: [3]float32{float32(r.Accel[0]), float32(r.Accel[1]), float32(r.Accel[2])},
			Gyro:  [3]float32{float32(r.Gyro[0]), float32(r.Gyro[1]), float32(r.Gyro[2])},
		})...)
		nIMU++
		c.nextIMU = c.nextIMU.Add(period)
	}
	c.last = now
	c.runScheduled(now)
	c.reconnect(now)

	if !now.Before(c.nextBattery) {
		c.batMV = c.bat.Sample(now.Sub(c.lastBattery), MeanAbsRPS(c.phys.Wheel))
		c.lastBattery = now
		c.nextBattery = advance(c.nextBattery, BatteryPeriod, now)
		c.out = append(c.out, board.EncodeBattery(board.Battery{MilliVolts: c.batMV})...)
		nBat++
	}
	if c.pad || c.holdFrames > 0 {
		if now.Sub(c.nextPad) > maxCatchUp {
			c.nextPad = now
		}
		for (c.pad || c.holdFrames > 0) && !now.Before(c.nextPad) {
			g := board.Gamepad{LX: c.sticks[0], LY: c.sticks[1], RX: c.sticks[2], RY: c.sticks[3]}
			if c.holdFrames > 0 {
				g.Buttons = c.holdMask
				c.holdFrames--
			}
			c.nextPad = c.nextPad.Add(GamepadPeriod)
			c.out = append(c.out, board.EncodeGamepad(g)...)
			nPad++
		}
	} else {
		c.nextPad = now
	}
	for _, k := range c.keys {
		c.out = append(c.out, board.EncodeKey(k)...)
		nKey++
	}
	c.keys = c.keys[:0]
	c.sendBoard(nIMU, nBat, nPad, nKey)

	c.lidarTick(now)
	c.publish(now)
}

// maxCatchUp bounds the burst after a stall: a quarter second of samples at most.
const maxCatchUp = 250 * time.Millisecond

// stepPhysics advances the physics by d in steps of at most 20 ms.
func (c *core) stepPhysics(d time.Duration) {
	for ; d > 0; d -= 20 * time.Millisecond {
		c.phys.Step(min(d, 20*time.Millisecond))
	}
}

// advance moves a periodic deadline one period on, or restarts it from now after a long stall.
func advance(next time.Time, period time.Duration, now time.Time) time.Time {
	next = next.Add(period)
	if now.Sub(next) > 2*period {
		next = now.Add(period)
	}
	return next
}

func (c *core) sendBoard(nIMU, nBat, nPad, nKey int) {
	n := uint64(nIMU + nBat + nPad + nKey)
	if c.board == nil || c.hang || c.booting {
		c.st.BoardTxSkipped += n
		return
	}
	if c.fromBoardRate > 0 {
		c.st.CorruptedBytes += uint64(corrupt(c.corruptRng, c.out, c.fromBoardRate))
	}
	switch c.board.write(c.out) {
	case wrote:
		c.st.IMUFrames += uint64(nIMU)
		c.st.BatteryFrames += uint64(nBat)
		c.st.GamepadFrames += uint64(nPad)
		c.st.KeyFrames += uint64(nKey)
	case noClient:
		c.st.BoardTxNoClient += n
	default:
		c.st.BoardTxFull += n
	}
}

// lidarTick sends the packets whose time has come: 17 per revolution, evenly paced over its 100 ms, so the
// byte rate is the real one (~13.7 KB/s) and not bursts. The LiDAR keeps spinning while silent or
// unplugged; only the bytes are withheld.
func (c *core) lidarTick(now time.Time) {
	const per = time.Second / LidarRevHz / (LidarPacketsPerRev + 1)
	if now.Sub(c.revStart) > time.Second { // a long stall: restart the revolution
		c.revStart, c.pktK = now, 0
	}
	c.lidOut = c.lidOut[:0]
	n := 0
	for {
		due := c.revStart.Add(time.Duration(c.pktK+1) * per)
		if now.Before(due) {
			break
		}
		var err error
		c.lidOut, err = c.lidPkt.Append(c.lidOut, c.pktK, c.phys.Pose)
		if err == nil {
			n++
		}
		c.pktK++
		if c.pktK == LidarPacketsPerRev+1 {
			c.pktK = 0
			c.revStart = c.revStart.Add(time.Second / LidarRevHz)
		}
	}
	if n == 0 {
		return
	}
	if c.lidar == nil || c.lidarSilent {
		c.st.LidarSkipped += uint64(n)
		return
	}
	switch c.lidar.write(c.lidOut) {
	case wrote:
		c.st.LidarPackets += uint64(n)
		c.st.LidarBytes += uint64(len(c.lidOut))
	case noClient:
		c.st.LidarNoClient += uint64(n)
	default:
		c.st.LidarFull += uint64(n)
	}
}

// reconnect brings dropped devices back as new ptys at the same links.
func (c *core) reconnect(now time.Time) {
	if c.replug(now, "board", c.s.boardLink, BoardBaud, &c.board, &c.boardBack, &c.st.BoardReconnects) {
		c.boardGen++
		c.s.startBoardReader(c.board, c.boardGen)
	}
	c.replug(now, "LiDAR", c.s.lidarLink, LidarBaud, &c.lidar, &c.lidarBack, &c.st.LidarReconnects)
}

// replug re-creates a dropped device once its time to come back has passed (retrying every second if
// that fails) and reports whether it did.
func (c *core) replug(now time.Time, name, link string, baud int, p **port, back *time.Time, reconnects *int) bool {
	if *p != nil || back.IsZero() || now.Before(*back) {
		return false
	}
	np, err := openPort(link, baud)
	if err != nil {
		c.event(now, name+" device could not be re-created, retrying in 1 s: "+err.Error())
		*back = now.Add(time.Second)
		return false
	}
	*p, *back = np, time.Time{}
	*reconnects++
	c.event(now, name+" device back at "+np.SlaveName)
	return true
}

func (c *core) runScheduled(now time.Time) {
	for len(c.scheduled) > 0 && !now.Before(c.scheduled[0].at) {
		f := c.scheduled[0].f
		c.scheduled = c.scheduled[1:]
		f.At = 0
		c.applyFault(f, now)
	}
}

// applyFault switches a fault or fires an event now (or schedules it when f.At > 0). An event its entry
// refuses now (home while the wheels turn) changes nothing: the refusal is an event in the truth and the
// error returned (Sim.Apply's, the control socket's answer).
func (c *core) applyFault(f Fault, now time.Time) error {
	if f.At > 0 {
		c.scheduled = append(c.scheduled, scheduledFault{now.Add(f.At), f})
		sort.SliceStable(c.scheduled, func(i, j int) bool { return c.scheduled[i].at.Before(c.scheduled[j].at) })
		c.event(now, "scheduled "+f.Text)
		return nil
	}
	if sp, ok := FaultSpecFor(f.Kind); ok {
		if sp.refuse != nil {
			if err := sp.refuse(c); err != nil {
				c.event(now, "refused "+f.Text+": "+err.Error())
				return err
			}
		}
		sp.apply(c, f, now)
	}
	c.event(now, "fault "+f.Text)
	return nil
}

// unplug closes a device (a USB drop) and sets when it comes back: the later of a pending return and
// now+d.
func unplug(p **port, back *time.Time, now time.Time, d time.Duration) {
	if *p != nil {
		(*p).Close()
		*p = nil
	}
	if b := now.Add(d); b.After(*back) {
		*back = b
	}
}

func (c *core) event(now time.Time, ev string) { c.s.emitTruth(marshalEvent(now, ev)) }

// activeFaults lists the faults in effect (the switches that are on, devices gone, sticks off centre), for
// the truth.
func (c *core) activeFaults() []string {
	var a []string
	for _, sp := range FaultSpecs {
		if sp.active != nil {
			a = sp.active(c, a)
		}
	}
	return a
}

// addIf appends s to a when on.
func addIf(a []string, on bool, s string) []string {
	if on {
		return append(a, s)
	}
	return a
}

// publish copies the state others may read.
func (c *core) publish(now time.Time) {
	t := Truth{
		T: now, World: c.phys.Kind.String(), TargetRPS: c.phys.Target, WheelRPS: c.phys.Wheel,
		BodyVel: c.phys.Vel, Pose: c.phys.Pose, Stalled: c.phys.Stalled, BatteryMV: c.batMV,
		GyroBias: c.imu.Bias, Faults: c.activeFaults(), Brake: c.brake(), BrakeStops: c.wearStops,
	}
	for i := range t.GyroBias {
		t.GyroBias[i] += c.imu.wander[i]
	}
	s := c.s
	s.mu.Lock()
	s.truth = t
	s.stats = c.st
	s.mu.Unlock()
	if s.truthOut != nil && !now.Before(c.nextTruth) {
		c.nextTruth = advance(c.nextTruth, truthPeriod, now)
		s.emitTruth(marshalTruth(t))
	}
}
