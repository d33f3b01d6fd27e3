package stopwatch

import (
	"fmt"
	"math"
	"slices"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/judge/vibration"
)

// The judges' names in StillFrom.
const (
	FromVibration = "board gyro vibration" // judge/vibration: the wheels
	FromOdometry  = "LiDAR odometry"       // judge/odometry JudgeStop: the robot
	FromGyroZ     = "gyro z"               // judge/odometry JudgeTurn: the robot's rotation
)

// Direction names the commanded motion: "fwd", "back", "left", "right" for a linear one whose other axis is
// under a tenth of it, "mixed" for other linear ones, "turn" for a rotation without linear motion.
func Direction(body [3]float64, idle float64) string {
	vx, vy := body[0], body[1]
	ax, ay := math.Abs(vx), math.Abs(vy)
	switch {
	case ax <= idle && ay <= idle:
		if math.Abs(body[2]) > idle {
			return "turn"
		}
		return ""
	case ay <= ax/10:
		if vx > 0 {
			return "fwd"
		}
		return "back"
	case ax <= ay/10:
		if vy > 0 {
			return "left"
		}
		return "right"
	}
	return "mixed"
}

// precedence orders the reasons not to count a stop when several apply (all are in the notes): what the
// command was first, then what ended the window, then what the judges lacked.
var precedence = []string{api.ConfidenceCrawl, api.ConfidenceTurning, api.ConfidenceInterrupt, api.ConfidenceDegenerate,
	api.ConfidenceNoData}

// judge runs the judges over one stop's window and builds its record.
func (w *Watch) judge(s *stop) api.StopRecord {
	vp, op := w.p.Vibration, w.p.Odometry
	trig, end := s.trig, s.windowEnd()
	cut := end < s.end
	vx, vy, wz := s.body[0], s.body[1], s.body[2]
	speed := math.Hypot(vx, vy)
	r := api.StopRecord{Wall: s.tr.Wall, UptimeS: s.tr.UptimeS, Kind: s.tr.Kind, Reason: s.tr.Reason, BodyVel: s.body,
		Speed: speed, Direction: Direction(s.body, w.p.Idle)}
	var why []string // reasons not to count it; precedence decides the confidence
	conf := func(c, note string) {
		why = append(why, c)
		r.Notes = append(r.Notes, c+": "+note)
	}
	turnOnly := speed < op.Moving && math.Abs(wz) >= op.Turning
	switch {
	case speed < op.Moving && math.Abs(wz) < op.Turning:
		conf(api.ConfidenceCrawl, fmt.Sprintf("%.3f m/s and %.3f rad/s at the trigger, under the judge's moving %.2f m/s and turning %.2f rad/s",
			speed, wz, op.Moving, op.Turning))
	case turnOnly:
		conf(api.ConfidenceTurning, fmt.Sprintf("turning at %.2f rad/s at the trigger: a linear limit does not apply", wz))
	case math.Abs(wz) >= op.Turning:
		conf(api.ConfidenceTurning, fmt.Sprintf("a linear stop at %.2f m/s while turning at %.2f rad/s", speed, wz))
	}

	// The stand judge, always: the wheels' vibration.
	v := vibration.Judge(w.recIMU, trig, end, vp)
	if cut && v.Outcome == vibration.Fail && v.StillFrom <= vp.MaxStop+1e-9 && v.QuietFor < vp.NeedQuiet {
		// Motion again after the wheels were still: the quiet it left is all there is (the scan-loss path's
		// way, vibration.Params.NeedQuiet); whether it is enough is MinQuiet's question below.
		q := vp
		q.NeedQuiet = v.QuietFor
		v = vibration.Judge(w.recIMU, trig, end, q)
		v.QuietRule = fmt.Sprintf("quiet until the window ended %.2f s after the trigger", end-trig)
	}
	still, from, outcome := v.StillFrom, FromVibration, v.Outcome.String()
	if !(v.Spinning > vp.Threshold) {
		still = math.NaN() // not spinning (or not measured) before the trigger: the judge could not tell a stop
	}
	vibNoData := math.IsNaN(v.Spinning) || v.Samples == 0 || v.HoleRestart || v.Gap > vp.MaxGap
	vibLine := v.Line(s.tr.Kind)
	noData := ""
	if vibNoData {
		noData = fmt.Sprintf("the board gyro's samples: %d in the window, longest hole %.2f s after the trigger", v.Samples, v.Gap)
		if v.Reason != "" {
			noData += " (" + v.Reason + ")"
		}
	} else if !(v.Spinning > vp.Threshold) && s.movingFor < vp.SpinWindow {
		if s.movingFor < 0 { // a back-dated trigger (the deadman's silence began with the only moving command)
			noData = fmt.Sprintf("the wheels were first commanded %.2f s after the trigger (the silence's start), no time in the judge's %.1f s spin window", -s.movingFor, vp.SpinWindow)
		} else {
			noData = fmt.Sprintf("the wheels were commanded for only %.2f s before the trigger, less than the judge's %.1f s spin window", s.movingFor, vp.SpinWindow)
		}
	}

	// The floor judges, when the LiDAR odometry ran around the stop.
	odoUsed := false
	if w.odoPresent(trig, end) {
		if turnOnly {
			t := odometry.JudgeTurn(w.gyro(), trig, end, op)
			if !math.IsNaN(t.Before) {
				still, from, outcome, odoUsed = t.StillAfter, FromGyroZ, t.Outcome.String(), true
				r.Notes = append(r.Notes, "gyro z (judge/odometry JudgeTurn): "+t.Line(s.tr.Kind))
			}
		} else {
			odo := w.odoSamples(vx/speed, vy/speed)
			o := odometry.JudgeStop(odo, trig, end, op)
			r.Notes = append(r.Notes, "LiDAR odometry (judge/odometry JudgeStop): "+o.Line(s.tr.Kind))
			upTo := end
			if !math.IsNaN(o.StillAfter) {
				upTo = trig + o.StillAfter
			}
			hole, at := odoHole(odo, trig, upTo)
			switch {
			case o.Outcome == odometry.NotJudged:
				outcome = o.Outcome.String()
				conf(api.ConfidenceDegenerate, o.Reason)
			case math.IsNaN(o.Before):
				conf(api.ConfidenceNoData, "the LiDAR odometry: "+o.Reason)
			case hole > op.MaxGap:
				// The scans stopped during the stop (the scan gate's own trigger: the LiDAR was lost): the
				// odometry's still is the scans' return and its travel spans the hole, neither the robot's.
				conf(api.ConfidenceNoData, fmt.Sprintf("the LiDAR odometry has a %.2f s hole %.2f s after the trigger (more than its %.2f s): the stop is not measured across it",
					hole, at-trig, op.MaxGap))
			case o.Before < op.Moving && speed >= op.Moving:
				r.Notes = append(r.Notes, fmt.Sprintf("the LiDAR odometry saw %.3f m/s before the trigger while %.2f m/s was commanded (on the stand, or held): still from the wheels' vibration",
					o.Before, speed))
			default:
				still, from, outcome, odoUsed = o.StillAfter, FromOdometry, o.Outcome.String(), true
				r.TravelM = num(o.Travel)
			}
		}
	}
	if !odoUsed && noData != "" {
		conf(api.ConfidenceNoData, noData)
	}
	if odoUsed {
		r.Notes = append(r.Notes, "still_s is the "+from+"'s; "+FromVibration+": "+vibLine)
	} else {
		r.Notes = append(r.Notes, "still_s is the "+FromVibration+"'s: "+vibLine)
	}
	if cut {
		switch q := end - trig - still; {
		case math.IsNaN(still) || still > end-trig:
			conf(api.ConfidenceInterrupt, fmt.Sprintf("%s %.2f s after the trigger, before the wheels were measured still", s.cutWhy, end-trig))
		case q < w.p.MinQuiet.Seconds():
			conf(api.ConfidenceInterrupt, fmt.Sprintf("%s %.2f s after the trigger, only %.2f s after still (need %.2f s of quiet)", s.cutWhy, end-trig, q, w.p.MinQuiet.Seconds()))
		default:
			r.Notes = append(r.Notes, fmt.Sprintf("%s %.2f s after the trigger, %.2f s after still: the window ends there", s.cutWhy, end-trig, q))
		}
	}
	r.StillS, r.StillFrom, r.Outcome = num(still), from, outcome
	r.Confidence = api.ConfidenceOK
	for _, c := range precedence {
		if slices.Contains(why, c) {
			r.Confidence = c
			break
		}
	}
	r.Notes = append(r.Notes, s.notes...)
	return r
}

// odoHole is the longest gap between the odometry's estimates from trig to upTo (including from trig to
// the first estimate after it) and where it began.
func odoHole(odo []odometry.Odo, trig, upTo float64) (hole, at float64) {
	prev := trig
	for _, o := range odo {
		if o.T <= trig {
			continue
		}
		if o.T-prev > hole {
			hole, at = o.T-prev, prev
		}
		if o.T > upTo {
			break
		}
		prev = o.T
	}
	return hole, at
}

// odoPresent reports whether odometry estimates were taken around the stop: at least two from the before
// window on, up to the window's end.
func (w *Watch) odoPresent(trig, end float64) bool {
	n := 0
	for _, o := range w.recOdo {
		if o.t >= trig-w.beforeO && o.t <= end {
			n++
		}
	}
	return n >= 2
}

// odoSamples are the recorded estimates as the floor proof hands them to JudgeStop (proofs/floor odo.go
// samples): Observable along the commanded direction.
func (w *Watch) odoSamples(dx, dy float64) []odometry.Odo {
	w.odoIn = w.odoIn[:0]
	for _, o := range w.recOdo {
		p := o.e.Pose
		w.odoIn = append(w.odoIn, odometry.Odo{T: o.t, X: p.X, Y: p.Y, Yaw: p.Yaw, Observable: o.e.Observable(dx, dy)})
	}
	return w.odoIn
}

// gyro is the recorded gyro z (rad/s) for JudgeTurn.
func (w *Watch) gyro() []odometry.Gyro {
	w.gyroIn = w.gyroIn[:0]
	for _, s := range w.recIMU {
		w.gyroIn = append(w.gyroIn, odometry.Gyro{T: s.T, Z: s.GyroZ})
	}
	return w.gyroIn
}

// num is x for the record, nil when not a number.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
