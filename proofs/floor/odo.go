package floor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/judge/odometry"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/scanmatch"
)

// feed follows the driver's scans in a goroutine of its own and hands them to the runner through a channel;
// when the channel is full the oldest scan is dropped and counted (the runner must never block the stream,
// nor the stream the runner). A stream that ends (the driver killed) is followed again every 200 ms.
type feed struct {
	ch     chan target.ScanSample
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	dropped int
	streams int
	lastErr error
}

func startFeed(ctx context.Context, sf target.ScanFollower, clk clock.Clock) *feed {
	ctx, cancel := context.WithCancel(ctx)
	f := &feed{ch: make(chan target.ScanSample, 64), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		for ctx.Err() == nil {
			f.mu.Lock()
			f.streams++
			f.mu.Unlock()
			err := sf.FollowScans(ctx, func(s target.ScanSample) error {
				for {
					select {
					case f.ch <- s:
						return nil
					default:
					}
					select {
					case <-f.ch:
						f.mu.Lock()
						f.dropped++
						f.mu.Unlock()
					default:
					}
				}
			})
			f.mu.Lock()
			f.lastErr = err
			f.mu.Unlock()
			if clk.Sleep(ctx, 200*time.Millisecond) != nil {
				return
			}
		}
	}()
	return f
}

func (f *feed) close() {
	f.cancel()
	<-f.done
}

// est is one accepted odometry estimate on the judge's timeline.
type est struct {
	T float64 // s since the run's start: receipt minus half a revolution (mid-sweep)
	E scanmatch.Estimate
}

// odometer is the run's LiDAR odometry, owned by the runner's goroutine: one scanmatch.Odometry over the
// whole run (one keyframe for a still robot, no drift), the estimates, and the newest scan as base-frame
// beams for the corridor check and the guard.
type odometer struct {
	odo     *scanmatch.Odometry
	ests    []est
	beams   []odometry.Beam
	beamsT  float64
	scans   int
	errs    int
	lastErr string
	// onScan is called for every scan after its estimate (the guard and the live rules run there).
	onScan func(t float64, beams []odometry.Beam)
	// logf receives each new kind of odometry error (the evidence log).
	logf func(format string, args ...any)
	// stampRef and delays place scans on the timeline (timeOf).
	stampRef time.Time
	delays   []float64
	// gyro, while a leg records the driver's IMU stream, feeds its z rate to the odometry (AddGyro: the
	// first guess's yaw and every ray's yaw de-skew, no cost term) on the driver's stamps, the scans' clock;
	// gyroFed samples of it are in. gyroScans counts the scans the gyro covered, gyroRefused the samples
	// AddGyro refused (out of order, not finite).
	gyro        imu.Recording
	gyroFed     int
	gyroScans   int
	gyroRefused int
}

// setGyro starts (rec) or ends (nil) feeding a leg's IMU recording to the odometry. Between legs the
// odometry de-skews as without a gyro (its samples stop covering the sweeps).
func (o *odometer) setGyro(rec imu.Recording) { o.gyro, o.gyroFed = rec, 0 }

// feedGyro hands the odometry the IMU samples that arrived since the last scan. Only the driver's samples
// carry its stamp, the scans' clock; others are skipped.
func (o *odometer) feedGyro() {
	if o.gyro == nil {
		return
	}
	ss := o.gyro.Samples()
	for _, g := range ss[min(o.gyroFed, len(ss)):] {
		if g.Stamp.IsZero() {
			continue
		}
		if err := o.odo.AddGyro(g.Stamp, g.Gyro[2]); err != nil {
			o.gyroRefused++
		}
	}
	o.gyroFed = len(ss)
}

func newOdometer() (*odometer, error) {
	o, err := scanmatch.New(scanmatch.DefaultConfig())
	if err != nil {
		return nil, err
	}
	return &odometer{odo: o, beamsT: math.NaN()}, nil
}

// toScan is the wire scan as the odometry reads it.
func toScan(s api.Scan) coind6.Scan {
	return coind6.Scan{Stamp: s.Stamp, ScanTime: time.Duration(s.ScanTime * float64(time.Second)), Ranges: []float32(s.Ranges),
		RangeMin: float32(s.RangeMin), RangeMax: float32(s.RangeMax), Samples: len(s.Ranges)}
}

// timeOf places a scan on the judge's timeline: at its receipt (at, s since the run's start) minus half a
// revolution, but with the receipt jitter taken out. Receipts come in bursts on a loaded machine (two scans
// in one read, 0.1 s late), and a 0.3 s window then holds too few distinct times to measure a speed. The
// scans' own stamps are even (the reader stamps each revolution's start), so each scan is placed at its stamp
// plus the smallest receipt-minus-stamp of the last delayWindow scans: the timeline of the least delayed
// receipt. The stamps are wall-clock times: a stamp that jumps against the receipts by more than
// delayReset (a wall-clock step) restarts the estimate.
func (o *odometer) timeOf(at float64, s api.Scan) float64 {
	const (
		delayWindow = 30
		delayReset  = 0.5
	)
	if o.stampRef.IsZero() {
		o.stampRef = s.Stamp
	}
	d := at - s.Stamp.Sub(o.stampRef).Seconds() // receipt minus stamp (plus a constant)
	if len(o.delays) > 0 && math.Abs(d-o.delays[len(o.delays)-1]) > delayReset {
		o.delays = o.delays[:0]
	}
	o.delays = append(o.delays, d)
	if len(o.delays) > delayWindow {
		o.delays = o.delays[1:]
	}
	least := o.delays[0]
	for _, x := range o.delays {
		least = math.Min(least, x)
	}
	return s.Stamp.Sub(o.stampRef).Seconds() + least - s.ScanTime/2
}

// add runs one scan, received at at (s since the run's start), through the odometry.
func (o *odometer) add(at float64, s api.Scan) {
	t := o.timeOf(at, s)
	o.scans++
	o.beams = odometry.BaseBeams(s.Ranges, s.AngleMin, s.AngleIncrement, s.RangeMin, s.RangeMax, odometry.DefaultMount)
	o.beamsT = t
	o.feedGyro()
	e, err := o.odo.Add(toScan(s), scanmatch.Aux{})
	if err != nil {
		o.errs++
		msg := err.Error()
		var se *scanmatch.ScanError
		if !errors.As(err, &se) && !errors.Is(err, scanmatch.ErrStamp) && !errors.Is(err, scanmatch.ErrBins) {
			msg = fmt.Sprintf("odometry: %v", err)
		}
		if msg != o.lastErr && o.logf != nil {
			o.logf("odometry: scan at %.3f s not used: %s", t, msg)
		}
		o.lastErr = msg
	} else {
		o.ests = append(o.ests, est{T: t, E: e})
		if e.Gyro {
			o.gyroScans++
		}
	}
	if o.onScan != nil {
		o.onScan(t, o.beams)
	}
}

// latest is the newest estimate, if any.
func (o *odometer) latest() (est, bool) {
	if len(o.ests) == 0 {
		return est{}, false
	}
	return o.ests[len(o.ests)-1], true
}

// samples are the estimates from from on, for the judge, with Observable along the base-frame direction
// (dx, dy) of the leg.
func (o *odometer) samples(from, dx, dy float64) []odometry.Odo {
	var out []odometry.Odo
	for _, e := range o.ests {
		if e.T < from {
			continue
		}
		out = append(out, odometry.Odo{T: e.T, X: e.E.Pose.X, Y: e.E.Pose.Y, Yaw: e.E.Pose.Yaw, Observable: e.E.Observable(dx, dy)})
	}
	return out
}
