package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/serialport"
)

// RecordOptions say what `capture record` records.
type RecordOptions struct {
	Device string
	Baud   int // 0: the device kind's own rate (board 1,000,000, COIN-D6 230,400)
	Kind   Kind
	Out    string        // the MCAP file; OUT.part while recording
	Until  time.Duration // stop after this long; 0: until the context ends or the device closes
	Log    io.Writer     // progress and the final line; nil: discarded
}

// RecordResult is what a recording took.
type RecordResult struct {
	Bytes, Reads uint64
	Why          string // why it stopped: "signal", "duration reached", "device closed (...)"
}

// DefaultBaud is the line rate of a kind of device, defined by its protocol.
func DefaultBaud(k Kind) int {
	if k == Lidar {
		return coind6.Baud
	}
	return board.Baud
}

// RecordMain is the `capture record` process: it records until SIGINT or SIGTERM (or the duration, or the
// device closing) and finishes the file. It is a separate function so the command stays flag wiring.
func RecordMain(o RecordOptions) (RecordResult, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return RecordSerial(ctx, o)
}

// RecordSerial records o.Device passively into a crash-safe MCAP file: the device is opened read-only with a
// shared lock (serialport.Options.Listen), so a port an owner holds exclusively is refused with the holder named,
// and nothing is ever written to it. Every read is one message on /serial/KIND/rx; what the bytes hold also
// goes on the decoded channels (see Decoded: /imu, /battery, /joy from a board, /scan from a LiDAR).
func RecordSerial(ctx context.Context, o RecordOptions) (RecordResult, error) {
	var res RecordResult
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	if o.Baud == 0 {
		o.Baud = DefaultBaud(o.Kind)
	}
	if _, err := ParseKind(string(o.Kind)); err != nil {
		return res, err
	}
	if _, err := os.Stat(o.Out); err == nil {
		return res, fmt.Errorf("%s exists; pick a new --out file", o.Out)
	}
	f, err := serialport.Open(o.Device, serialport.Options{Baud: o.Baud, ReadOnly: true, Listen: true,
		KeepInput: true}) // a recorder keeps what already waits in the tty: it is part of the stream
	if err != nil {
		if serialport.IsBusy(err) {
			return res, fmt.Errorf("%w: it is held exclusively (flock or TIOCEXCL) and capture record only listens. "+
				"Record through its owner instead: `rosorin-base run --capture DIR` records every board byte both ways, "+
				"and the supervisor's raw tee socket (the control socket + \".raw\") streams what the board sends; "+
				"or stop the owner and start it on `capture tap --device %s --link PATH --out FILE`", err, o.Device)
		}
		if errors.Is(err, os.ErrNotExist) {
			return res, fmt.Errorf("device %s does not exist; check the path (ls -l /dev/ttyACM* /dev/lidar)", o.Device)
		}
		return res, err
	}
	defer f.Close()
	host, _ := os.Hostname()
	rec, err := mcapfile.Create(o.Out, mcapfile.Options{Metadata: map[string]string{
		"device": o.Device, "baud": strconv.Itoa(o.Baud), "host": host, "version": buildVersion(),
		"kind": string(o.Kind), "recorder": "capture record (passive)"}})
	if err != nil {
		return res, err
	}
	rx, err := rec.RawChannel(RawTopic(o.Kind, FromDevice), string(o.Kind))
	var dec *Decoded
	if err == nil {
		dec, err = NewDecoded(rec, o.Kind, FromDevice)
	}
	if err != nil {
		rec.Close()
		return res, err
	}
	var werr error
	var deadline time.Time
	if o.Until > 0 {
		deadline = time.Now().Add(o.Until)
	}
	fmt.Fprintf(log, "capture record: %s at %d baud -> %s (%s while recording)\n", o.Device, o.Baud, o.Out, rec.PartPath())
	buf := make([]byte, 4096)
	res.Why = "stopped"
	for {
		if ctx.Err() != nil {
			res.Why = "signal"
			break
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			res.Why = "duration reached"
			break
		}
		// Wake at least every 100 ms to see a signal or the deadline (the port is in Go's poller).
		_ = f.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, err := f.Read(buf)
		if n > 0 {
			when := time.Now()
			if werr = rec.Write(rx, when, buf[:n]); werr == nil {
				werr = dec.Feed(when, buf[:n])
			}
			if werr != nil {
				break
			}
			res.Bytes += uint64(n)
			res.Reads++
		}
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			res.Why = "device closed (" + err.Error() + ")"
			break
		}
	}
	if werr != nil {
		fmt.Fprintf(log, "capture record: RECORDING STOPPED: %v\n", werr)
	}
	if err := rec.Close(); err != nil {
		return res, err
	}
	fmt.Fprintf(log, "capture record: %s; %d bytes in %d reads written to %s\n", res.Why, res.Bytes, res.Reads, o.Out)
	return res, werr
}

func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return v
}

// BatteryMessage converts a board battery report to sensor_msgs/msg/BatteryState: voltage only, the rest
// NaN (unmeasured, as the message's comments ask), technology unknown.
func BatteryMessage(t time.Time, v board.Battery) *rosmsg.BatteryState {
	nan := float32(math.NaN())
	return &rosmsg.BatteryState{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "base_link"},
		Voltage: float32(v.Volts()), Temperature: nan, Current: nan, Charge: nan, Capacity: nan,
		DesignCapacity: nan, Percentage: nan, Present: true}
}

const standardGravity = 9.80665

// IMUMessage converts a board IMU frame (g, deg/s) to sensor_msgs/msg/Imu (m/s², rad/s), orientation unknown.
func IMUMessage(t time.Time, v board.IMU) *rosmsg.Imu {
	m := &rosmsg.Imu{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "imu_link"}}
	m.OrientationCovariance[0] = -1 // REP 145: no orientation estimate
	m.LinearAcceleration = rosmsg.Vector3{X: float64(v.Accel[0]) * standardGravity,
		Y: float64(v.Accel[1]) * standardGravity, Z: float64(v.Accel[2]) * standardGravity}
	d := math.Pi / 180
	m.AngularVelocity = rosmsg.Vector3{X: float64(v.Gyro[0]) * d, Y: float64(v.Gyro[1]) * d, Z: float64(v.Gyro[2]) * d}
	return m
}
