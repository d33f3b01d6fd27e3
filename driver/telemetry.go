package driver

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/charger"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/protocol/board"
)

// onBoard handles one read's worth of board frames (chapter 11 read_loop dispatch), in the loop.
func (r *loopState) onBoard(b boardBatch) {
	r.parser, r.malformed = b.stats, b.malformed
	if b.frames > 0 {
		r.hasFrame, r.lastFrameAt = true, b.at
	}
	imus := 0
	for _, m := range b.msgs {
		switch v := m.(type) {
		case board.IMU:
			r.onIMU(v, b.at, b.imuAt[imus])
			imus++
		case board.Battery:
			r.onBattery(v, b.at)
		case board.Gamepad:
			r.onGamepad(v, b.at)
		case board.Key:
			if reason := motion.KeyTrip(v.ID, v.Event, r.p.estopKey); reason != "" {
				r.trip(reason)
			} else {
				r.log.Info("key frame", "id", v.ID, "event", fmt.Sprintf("0x%02x", v.Event))
			}
		}
	}
}

// onIMU: start-up calibration first (samples not published during it), then the bias tracker, the
// accelerometer calibration, SI units and the chapter 11 covariances (publish_imu). at is the read's time
// (calibration, bias tracking, rates); stamp is the frame's own (boardBatch.imuAt), published as
// api.IMU.Stamp.
func (r *loopState) onIMU(m board.IMU, at, stamp time.Time) {
	r.imuRate.add(at)
	r.stops.watch.IMU(at, m.Gyro)
	g := [3]float64{float64(m.Gyro[0]), float64(m.Gyro[1]), float64(m.Gyro[2])}
	a := [3]float64{float64(m.Accel[0]), float64(m.Accel[1]), float64(m.Accel[2])}
	if !r.calib.Done() {
		if !r.calib.Add(g, at) {
			return
		}
		res := r.calib.Result()
		if res.Still {
			r.bias.SetBias(res.Bias)
			r.log.Info(fmt.Sprintf("gyro bias (deg/s) [%.3f %.3f %.3f] from %d samples, std [%.3f %.3f %.3f]",
				res.Bias[0], res.Bias[1], res.Bias[2], res.Samples, res.Std[0], res.Std[1], res.Std[2]))
		} else {
			r.log.Warn(res.Warning)
		}
	}
	corr, err := r.bias.Update(g, at)
	if err != nil {
		r.malformed++
		return
	}
	s, err := motion.ConvertIMU(a, corr, r.p.imu)
	if err != nil {
		r.malformed++
		return
	}
	r.contactGyro(at, s.Gyro[2])
	r.publish(api.TopicIMU, &api.IMU{
		Stamp: r.wall(stamp), FrameID: r.p.imuFrame,
		AngularVelocity: s.Gyro, LinearAcceleration: s.Accel,
		OrientationCovariance: s.OrientationCov, AngularVelocityCovariance: s.GyroCov,
		LinearAccelerationCovariance: s.AccelCov,
	})
}

// onBattery: charger detection from voltage steps (persisted), the battery message and the CSV log line every
// 10 s (unix time, mV, wheels enabled).
func (r *loopState) onBattery(b board.Battery, at time.Time) {
	mv := int(b.MilliVolts)
	ev, step, err := r.charger.Add(mv, at)
	if err != nil {
		r.malformed++
		return
	}
	r.batteryMV = mv
	if ev != charger.EventNone {
		r.log.Info(fmt.Sprintf("battery: %s (%+d mV)", ev, step))
		if pl := r.charger.Plugged(); pl != nil && r.o.StateDir != "" {
			if data, err := charger.MarshalPlugged(*pl, r.wall(at)); err == nil {
				r.disk.put(diskJob{path: r.pluggedPath(), data: data})
			}
		}
	}
	r.publish(api.TopicBattery, &api.Battery{Stamp: r.wall(at), Voltage: b.Volts(), MilliVolts: mv,
		Present: true, Plugged: r.charger.Plugged()})
	if r.o.StateDir != "" && (r.batLogAt.IsZero() || at.Sub(r.batLogAt) >= BatteryLogEvery) {
		r.batLogAt = at
		w := r.wall(at)
		en := 0
		if r.gate.Status().Enabled {
			en = 1
		}
		r.disk.put(diskJob{
			path:   filepath.Join(r.o.StateDir, "battery", w.Format("20060102")+".csv"),
			data:   fmt.Appendf(nil, "%d,%d,%d\n", w.Unix(), mv, en),
			append: true,
		})
	}
}

// BatteryLogEvery: one CSV line per 10 s (owner 2026-10-01: learn the full charge and the plug step).
const BatteryLogEvery = 10 * time.Second

func (r *loopState) pluggedPath() string { return filepath.Join(r.o.StateDir, "plugged.json") }

// loadPlugged reads the last charger state: a driver restart does not move the cable.
func (r *loopState) loadPlugged() {
	if r.o.StateDir == "" {
		r.log.Warn("no state directory (no $HOME): charger state and battery log are not kept; pass --state-dir")
		return
	}
	data, err := readFileLimit(r.pluggedPath(), 4096)
	if err != nil {
		return // first start, or never detected
	}
	pl, t, err := charger.LoadPlugged(data)
	if err != nil {
		r.log.Warn("charger state not loaded", "file", r.pluggedPath(), "err", err)
		return
	}
	r.charger = charger.New(r.p.charger, pl)
	r.log.Info("charger state loaded", "plugged", *pl, "detected", t.Format(time.RFC3339))
}

// onGamepad: the Joy message, then the pad's decisions (trip on the first frame of any button but MODE, MODE
// hold reset, drive unlock).
func (r *loopState) onGamepad(g board.Gamepad, at time.Time) {
	r.lastPadAt, r.hasPad = at, true
	r.padHist[r.padHistN%len(r.padHist)] = padRaw{at: at, f: g}
	r.padHistN++
	msg := &api.Gamepad{Stamp: r.wall(at), RawButtons: g.Buttons, Hat: g.Hat}
	ax := g.Axes()
	copy(msg.Axes[:4], ax[:])
	msg.Axes[4] = float64(g.Hat)
	for i := range 16 {
		msg.Buttons[i] = int(g.Buttons>>i) & 1
	}
	r.publish(api.TopicGamepad, msg)

	res := r.pad.Feed(motion.PadFrame{Buttons: g.Buttons, Hat: g.Hat, LX: g.LX, LY: g.LY, RX: g.RX, RY: g.RY},
		at, r.gate.Status())
	if res.Trip != "" {
		r.trip(res.Trip)
		r.log.Warn("gamepad trip raw frames", "frames", r.padFrames())
	}
	r.applyPad(res, at)
}

// applyPad carries out a pad decision (from a frame or a tick).
func (r *loopState) applyPad(res motion.PadResult, at time.Time) {
	if res.ResetRequest {
		was := r.gate.Reset()
		r.log.Info(fmt.Sprintf("e-stop cleared by gamepad MODE hold (was: %s); motion still disabled", was))
	}
	if res.ModeChanged {
		if res.Mode == motion.PadLocked {
			r.log.Info("gamepad locked", "why", res.LockReason)
		} else {
			r.log.Info("gamepad drive mode: the sticks drive the robot (exempt from the scan gate)")
		}
	}
	if res.Drive != nil {
		// The gamepad drives on the manual input, above navigation (and exempt from the scan gate).
		if err := r.gate.SetCmd(motion.InputManual, *res.Drive, at, motion.SourceGamepad); err != nil {
			r.writeStop(r.clk.Now())
			r.logRejected(err)
		}
		r.afterCommand(r.clk.Now())
	}
}

func (r *loopState) padFrames() []string {
	var out []string
	n := min(r.padHistN, len(r.padHist))
	for i := r.padHistN - n; i < r.padHistN; i++ {
		p := r.padHist[i%len(r.padHist)]
		out = append(out, fmt.Sprintf("%.2f:%s", p.at.Sub(r.start).Seconds(), fmt.Sprintf("%x", board.EncodeGamepad(p.f))))
	}
	return out
}

// wall turns a monotonic reading into a wall-clock stamp for messages: the start's wall time plus the
// monotonic time since start (a wall clock step does not bend message stamps mid-run).
func (r *loopState) wall(at time.Time) time.Time {
	return r.startWall.Add(at.Sub(r.start)).Round(0)
}

func (r *loopState) odomMsg(o motion.OdomSample) *api.Odom {
	return &api.Odom{Stamp: r.wall(o.Stamp), FrameID: r.p.odomFrame, ChildFrameID: r.p.baseFrame,
		X: o.Pose.X, Y: o.Pose.Y, Theta: o.Pose.Theta, QZ: o.QZ, QW: o.QW,
		Twist:          api.Twist{VX: o.Twist.VX, VY: o.Twist.VY, WZ: o.Twist.WZ},
		PoseCovariance: o.PoseCov, TwistCovariance: o.TwistCov}
}
