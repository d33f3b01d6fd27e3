package board

import "time"

// IMUPeriod is the board's IMU report period: it streams IMU frames unasked at about 110 Hz (measured on the
// robot; the simulator's IMURateHz is the same).
const IMUPeriod = time.Second / 110

// IMUStamper gives the IMU frames of each read their own strictly increasing stamps. A read can hold several
// IMU frames (1-6 of every 661 /imu messages came in a read with another one): stamping them all with the
// read's time repeats a stamp, and a filter downstream sees dt = 0.
//
// The rule: the n IMU frames of a read returned at t are stamped back from t by Period, the last one t:
// t-(n-1)P, ..., t-P, t (the frames arrived in that order, one per period, and the read returned after the
// last). A stamp is never at or before the previous read's last stamp: when the frames do not fit between
// that stamp and t they are spread evenly over the gap (the last still t), and when the gap is shorter than
// n nanoseconds (a clock that stood still) they are 1 ns apart after the previous stamp. So stamps are
// strictly increasing and never later than the read's time unless the clock went backward.
//
// The zero value uses IMUPeriod. Pure: no clock; one goroutine owns a stamper (one per stream).
type IMUStamper struct {
	Period time.Duration // 0: IMUPeriod
	last   time.Time
}

// Stamps appends to out the stamps of n IMU frames that arrived in one read returned at t and returns it.
func (s *IMUStamper) Stamps(out []time.Time, t time.Time, n int) []time.Time {
	if n <= 0 {
		return out
	}
	p := s.Period
	if p <= 0 {
		p = IMUPeriod
	}
	first := t.Add(-time.Duration(n-1) * p)
	for i := 0; i < n; i++ {
		var st time.Time
		switch {
		case s.last.IsZero() || first.After(s.last):
			st = first.Add(time.Duration(i) * p)
		case t.Sub(s.last) >= time.Duration(n):
			st = s.last.Add(t.Sub(s.last) * time.Duration(i+1) / time.Duration(n))
		default:
			st = s.last.Add(time.Duration(i + 1))
		}
		out = append(out, st)
	}
	s.last = out[len(out)-1]
	return out
}

// Last is the last stamp given (zero before the first).
func (s *IMUStamper) Last() time.Time { return s.last }
