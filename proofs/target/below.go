package target

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/evidence"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/protocol/board"
)

// retryEvery is how often the board-IMU reader tries its sources again while neither answers. 50 ms: the
// seed's raw_watch began 0.04-0.10 s after the command, and a quicker retry costs only failed opens.
const retryEvery = 50 * time.Millisecond

// BoardIMU reads the board's IMU frames from below the driver, for the paths that kill the driver or stop
// the whole service. It prefers RawSocket, the supervisor's pass-through of every byte the board sends (it
// lives as long as the supervisor does, so a driver kill does not interrupt it); when that does not answer
// it opens Device itself, read-only and without taking it, as the seed's raw_watch did, but only while no
// other process holds the port. It keeps trying both until its context ends.
type BoardIMU struct {
	RawSocket string // the supervisor's raw stream (the control socket path + ".raw"); "" to skip
	Device    string // the board's port; "" to skip
	Clock     clock.Clock
	Evidence  *evidence.Log
}

// Stream is a stream function for imu.StartRecorder. It returns only when ctx ends.
func (b BoardIMU) Stream(ctx context.Context, emit func(imu.Sample)) error {
	last := "" // the source in use, logged when it changes
	note := func(s string) {
		if s != last {
			b.Evidence.Logf("board IMU: %s", s)
			last = s
		}
	}
	for ctx.Err() == nil {
		if b.RawSocket != "" {
			var d net.Dialer
			dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			c, err := d.DialContext(dctx, "unix", b.RawSocket)
			cancel()
			if err == nil {
				note("reading the supervisor's raw stream " + b.RawSocket)
				err = b.read(ctx, c, nil, imu.SourceRaw, b.RawSocket, emit)
				note("raw stream ended: " + errText(err))
				continue
			}
		}
		if b.Device != "" {
			f, err := openPortReadOnly(b.Device)
			if err == nil {
				note("reading " + b.Device + " directly")
				err = b.read(ctx, f, func() bool { held, _ := portLocked(b.Device); return held }, imu.SourceDirect, b.Device, emit)
				note("direct read ended: " + errText(err))
				continue
			}
			note("no source: " + err.Error())
		}
		if b.Clock.Sleep(ctx, retryEvery) != nil {
			break
		}
	}
	return ctx.Err()
}

// deadliner is what both a unix connection and a port file offer.
type deadliner interface {
	io.ReadCloser
	SetReadDeadline(time.Time) error
}

// read parses IMU frames from r until an error, ctx ends, or yield reports that another process took the
// port (checked every 100 ms: two readers of one tty split its bytes between them, so the direct reader
// gives the port back to a returning driver at once). It closes r.
func (b BoardIMU) read(ctx context.Context, r deadliner, yield func() bool, src imu.Source, where string, emit func(imu.Sample)) error {
	defer r.Close()
	stop := context.AfterFunc(ctx, func() { r.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	var p board.Parser
	buf := make([]byte, 4096)
	nextYield := b.Clock.Now().Add(100 * time.Millisecond)
	for {
		if yield != nil && b.Clock.Now().After(nextYield) {
			if yield() {
				return errors.New("another process took the port (the driver is back)")
			}
			nextYield = b.Clock.Now().Add(100 * time.Millisecond)
		}
		// The kernel's deadline is on the wall clock (clock.Real), whatever the proof's clock is.
		if err := r.SetReadDeadline(clock.Real{}.Now().Add(100 * time.Millisecond)); err != nil {
			return err
		}
		n, err := r.Read(buf)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if n > 0 {
			at := b.Clock.Now()
			p.Feed(buf[:n], func(f board.Frame) {
				if f.Func != board.FuncIMU {
					return
				}
				m, derr := board.DecodeIMU(f.Payload)
				if derr != nil {
					return // counted by nothing worth keeping: DecodeIMU refuses only impossible readings
				}
				const r = math.Pi / 180 // the board reports deg/s; the judge's threshold is rad/s
				emit(imu.Sample{At: at, Gyro: [3]float64{float64(m.Gyro[0]) * r, float64(m.Gyro[1]) * r, float64(m.Gyro[2]) * r},
					Source: src, Where: where})
			})
		}
		switch {
		case err == nil, errors.Is(err, os.ErrDeadlineExceeded):
		default:
			return err
		}
	}
}

func errText(err error) string {
	if err == nil {
		return "end of stream"
	}
	return err.Error()
}
