package capture

import (
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// Decoded channels a recorder adds next to the raw bytes, in ROS 2 schemas so Foxglove plots them and
// `ros2 bag play` republishes them.
const (
	TopicIMU     = "/imu"         // sensor_msgs/msg/Imu, board -> host IMU frames
	TopicBattery = "/battery"     // sensor_msgs/msg/BatteryState, board -> host battery reports
	TopicJoy     = "/joy"         // sensor_msgs/msg/Joy, board -> host gamepad frames
	TopicWheels  = "/wheel_twist" // geometry_msgs/msg/TwistStamped, host -> board motor frames through the kinematics
	TopicScan    = "/scan"        // sensor_msgs/msg/LaserScan, LiDAR revolutions (400 bins)
)

// Direction is which way raw bytes went.
type Direction uint8

// Directions of a serial stream.
const (
	FromDevice Direction = iota // device -> host (rx)
	ToDevice                    // host -> device (tx)
)

// RawTopic is the raw channel of a device kind and direction: /serial/board/rx, /serial/board/tx, ...
func RawTopic(k Kind, d Direction) string {
	if d == ToDevice {
		return "/serial/" + string(k) + "/tx"
	}
	return "/serial/" + string(k) + "/rx"
}

// Decoded decodes one raw stream (a kind and a direction) into its decoded channels on a recorder: IMU,
// battery and gamepad frames from the board, the wheel twist from motor frames to the board, scans from the
// LiDAR. Its channels are registered by NewDecoded (a channel without messages still says what the stream
// could have held). One goroutine owns a Decoded; it never blocks on anything but the recorder.
type Decoded struct {
	rec     *mcapfile.Recorder
	kind    Kind
	dir     Direction
	dec     *Decoder
	chans   map[string]*mcapfile.Channel
	when    time.Time
	err     error
	asm     *coind6.Assembler
	geom    kinematics.Geometry
	wheels  [board.NumMotors]float64 // the last commanded rps of each wheel (motor frames may set one)
	emitFn  func(Record)
	Written uint64 // decoded messages written
}

// NewDecoded returns the decoder of one raw stream recorded on rec.
func NewDecoded(rec *mcapfile.Recorder, kind Kind, dir Direction) (*Decoded, error) {
	dec, err := NewDecoder(kind)
	if err != nil {
		return nil, err
	}
	d := &Decoded{rec: rec, kind: kind, dir: dir, dec: dec, chans: map[string]*mcapfile.Channel{},
		geom: kinematics.DefaultGeometry()}
	if kind == Lidar {
		d.asm = coind6.NewAssembler(coind6.DefaultScanConfig())
	}
	d.emitFn = d.emit
	var topics [][2]string
	switch {
	case kind == Board && dir == FromDevice:
		topics = [][2]string{{TopicIMU, "sensor_msgs/msg/Imu"}, {TopicBattery, "sensor_msgs/msg/BatteryState"},
			{TopicJoy, "sensor_msgs/msg/Joy"}}
	case kind == Board && dir == ToDevice:
		topics = [][2]string{{TopicWheels, "geometry_msgs/msg/TwistStamped"}}
	case kind == Lidar && dir == FromDevice:
		topics = [][2]string{{TopicScan, "sensor_msgs/msg/LaserScan"}}
	}
	for _, tt := range topics {
		c, err := rec.MessageChannel(tt[0], tt[1])
		if err != nil {
			return nil, err
		}
		d.chans[tt[0]] = c
	}
	return d, nil
}

// Feed decodes bytes that were read or written at t and records what they held. The error is the
// recorder's (recording stopped); decoding errors are only counted (see Summary).
func (d *Decoded) Feed(t time.Time, data []byte) error {
	if d.err != nil {
		return d.err
	}
	d.when = t
	d.dec.Feed(data, d.emitFn)
	return d.err
}

// Summary is the decoder's count of frames, bad checksums and skipped bytes so far.
func (d *Decoded) Summary() Summary { return d.dec.Summary() }

func (d *Decoded) write(topic string, m rosmsg.Message) {
	c, ok := d.chans[topic]
	if !ok {
		return
	}
	if err := d.rec.WriteMessage(c, d.when, m); err != nil {
		d.err = err
		return
	}
	d.Written++
}

func (d *Decoded) emit(r Record) {
	if d.err != nil {
		return
	}
	switch r := r.(type) {
	case *BoardRecord:
		switch v := r.Value.(type) {
		case board.IMU:
			if d.dir == FromDevice {
				d.write(TopicIMU, IMUMessage(d.when, v))
			}
		case board.Battery:
			if d.dir == FromDevice {
				d.write(TopicBattery, BatteryMessage(d.when, v))
			}
		case board.Gamepad:
			if d.dir == FromDevice {
				d.write(TopicJoy, JoyMessage(d.when, v))
			}
		case board.MotorCommand:
			if d.dir == ToDevice && ApplyMotor(&d.wheels, v) {
				d.write(TopicWheels, WheelTwistMessage(d.when, d.wheels, d.geom))
			}
		}
	case *LidarRecord:
		if r.Err != nil || d.asm == nil {
			return
		}
		if s, ok := d.asm.Add(r.Packet, d.when); ok {
			d.write(TopicScan, ScanMessage(s, "laser"))
		}
	}
}

// ApplyMotor applies a decoded host -> board motor frame to the wheels' commanded speeds (wire ids 0..3;
// other ids and non-finite speeds are ignored, as the kinematics cannot place them) and reports whether
// the frame was one this toolkit can place.
func ApplyMotor(wheels *[board.NumMotors]float64, c board.MotorCommand) bool {
	switch c.Kind {
	case board.MotorSetOne, board.MotorSetMany:
		used := false
		for _, s := range c.Speeds {
			if int(s.ID) < len(wheels) && !math.IsNaN(float64(s.RPS)) && !math.IsInf(float64(s.RPS), 0) {
				wheels[s.ID] = float64(s.RPS)
				used = true
			}
		}
		return used
	case board.MotorStopOne, board.MotorStopMask:
		for i := range wheels {
			if c.Mask&(1<<i) != 0 {
				wheels[i] = 0
			}
		}
		return true
	}
	return false
}

// WheelTwistMessage is the twist the commanded wheel speeds give, stamped t, frame base_link.
func WheelTwistMessage(t time.Time, rps [board.NumMotors]float64, g kinematics.Geometry) *rosmsg.TwistStamped {
	tw := kinematics.BodyTwist(rps, g)
	return &rosmsg.TwistStamped{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "base_link"},
		Twist: rosmsg.Twist{Linear: rosmsg.Vector3{X: tw.VX + 0, Y: tw.VY + 0}, Angular: rosmsg.Vector3{Z: tw.WZ + 0}}}
}

// JoyMessage converts a gamepad frame to sensor_msgs/msg/Joy: axes LX, LY, RX, RY (-1..1, raw/127, as
// board.Gamepad.Axes); buttons are the 16 bits of the button word, bit 0 first, then the hat's raw code.
func JoyMessage(t time.Time, g board.Gamepad) *rosmsg.Joy {
	ax := g.Axes()
	m := &rosmsg.Joy{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "joy"},
		Axes: []float32{float32(ax[0]), float32(ax[1]), float32(ax[2]), float32(ax[3])}, Buttons: make([]int32, 17)}
	for i := 0; i < 16; i++ {
		m.Buttons[i] = int32(g.Buttons >> i & 1)
	}
	m.Buttons[16] = int32(g.Hat)
	return m
}

// ScanMessage converts an assembled revolution to sensor_msgs/msg/LaserScan the way the driver publishes
// it (driver/lidar.ToAPI): angles counter-clockwise from 0 in bins of 360/Bins degrees, stamped with the
// first ray, time_increment = scan_time / bins.
func ScanMessage(s coind6.Scan, frameID string) *rosmsg.LaserScan {
	n := len(s.Ranges)
	inc := 2 * math.Pi / float64(max(n, 1))
	st := s.ScanTime.Seconds()
	return &rosmsg.LaserScan{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(s.Stamp.UnixNano()), FrameID: frameID},
		AngleMin: 0, AngleMax: float32(inc * float64(max(n-1, 0))), AngleIncrement: float32(inc),
		TimeIncrement: float32(st / float64(max(n, 1))), ScanTime: float32(st),
		RangeMin: s.RangeMin, RangeMax: s.RangeMax, Ranges: s.Ranges, Intensities: s.Intensities}
}

// String names the stream for messages.
func (d *Decoded) String() string { return fmt.Sprintf("%s %s", d.kind, RawTopic(d.kind, d.dir)) }
