package driver

import (
	"os"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// state builds the state record at now (the seed's ~/state plus link health, pids, publishers, loop timing).
func (r *loopState) state(now time.Time) api.State {
	g := r.gate.Snapshot(now)
	s := api.State{
		Stamp:            r.wall(now),
		UptimeS:          round3(now.Sub(r.start).Seconds()),
		Enabled:          g.Enabled,
		Plugged:          r.charger.Plugged(),
		BodyVel:          [3]float64{round3(g.Cur.VX), round3(g.Cur.VY), round3(g.Cur.WZ)},
		WheelRPS:         r.lastRPS,
		CmdSource:        g.CmdSource.String(),
		Source:           g.Driving,
		ScansHz:          r.scanRate.hz(now),
		GyroBiasDPS:      r.bias.Bias(),
		GyroBiasTracking: r.bias.Tracking(now),
		GyroCalibrating:  !r.calib.Done(),
		BatteryMV:        r.batteryMV,
		PadMode:          string(r.pad.Mode()),
		PadConnected:     r.hasPad && now.Sub(r.lastPadAt) < 2*time.Second,
		Trips:            g.Trips,
		LastRejected:     g.LastRejected,
		PIDs:             api.PIDs{Supervisor: r.o.SupervisorPID, Driver: os.Getpid()},
		Publishers:       r.publisherList(now),
		Loop:             r.jitter.stats(r.p.rateHz),
		Config:           r.p.summary,
		Contact:          r.contactState(now),
		StopMonitor:      r.stopState(),
	}
	for i, b := range s.GyroBiasDPS {
		s.GyroBiasDPS[i] = float64(int64(b*1e4+sign(b)*0.5)) / 1e4
	}
	if r.lastBadCmd != "" && s.LastRejected == "" {
		s.LastRejected = r.lastBadCmd
	}
	if g.EStop != "" {
		e := g.EStop
		s.EStop = &e
	}
	if g.Blocked != "" {
		b := g.Blocked
		s.Blocked = &b
	}
	if g.CmdAge != nil {
		a := round3(g.CmdAge.Seconds())
		s.CmdAgeS = &a
	}
	if g.ScanAge != nil {
		a := round3(g.ScanAge.Seconds())
		s.ScanAgeS = &a
	}
	for pid := range r.scanStreams {
		s.PIDs.LidarReader = pid
	}
	ts := api.TransportStats{}
	if r.tr != nil {
		ts = r.tr.Stats()
	}
	s.Link = api.LinkHealth{
		IMUHz:        r.imuRate.hz(now),
		Frames:       r.parser.Frames,
		BadChecksum:  r.parser.BadChecksum,
		UnknownFunc:  r.parser.UnknownFunc,
		SkippedBytes: r.parser.SkippedBytes,
		Malformed:    r.malformed,
		RejectedCmds: g.Rejected + r.badCmds,
		BadRequests:  ts.BadRequests,
		Throttled:    ts.Throttled,
		DroppedMsgs:  ts.Dropped,
		RefusedScans: ts.RefusedScans,
		RefusedRoles: ts.RefusedRoles,
		MotorFrames:  r.motorFrames,
		StopFrames:   r.stopFrames,
		EncodeErrors: r.encodeErrors,
		WriteErrors:  r.writeErrors,
	}
	if r.hasFrame {
		a := round3(now.Sub(r.lastFrameAt).Seconds())
		s.Link.BoardAgeS = &a
	}
	if silent, age := r.boardSilent(now); silent {
		s.BoardSilent = true
		s.Warning = silentWarning(age)
	} else if busy := r.out.busyFor(now); busy > BoardSilentAfter {
		s.Warning = "board write blocked for " + busy.Round(time.Millisecond).String() +
			": the driver CANNOT stop the wheels (USB gone or firmware hung); use the power switch"
	}
	return s
}
