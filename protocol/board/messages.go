package board

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MaxRPS bounds the wheel speed any encoder will put on the wire, in revolutions per second. The robot's own
// limits are far lower (0.35 m/s forward is 1.39 rps, 1.0 rad/s turning is 0.69 rps); 5 rps is 1.26 m/s at
// the rim, a speed no command of this toolkit can legitimately ask for. The firmware range-checks nothing.
const MaxRPS = 5.0

// Motor sub-commands (first payload byte of a MOTOR frame).
const (
	motorSetOne   byte = 0x00
	motorSetMany  byte = 0x01
	motorStopOne  byte = 0x02
	motorStopMask byte = 0x03
)

// NumMotors is the number of wheel motors; wire ids are 0-based (0..3 = motors 1..4).
const NumMotors = 4

// MotorSpeed is one motor's set speed: a 0-based wire id and revolutions per second.
type MotorSpeed struct {
	ID  uint8
	RPS float32
}

func checkRPS(id uint8, rps float64) error {
	if math.IsNaN(rps) || math.IsInf(rps, 0) {
		return fmt.Errorf("%w: motor %d speed %v", ErrNonFinite, id, rps)
	}
	if math.Abs(rps) > MaxRPS {
		return fmt.Errorf("%w: motor %d speed %.3f rps (limit %.1f)", ErrOutOfRange, id, rps, MaxRPS)
	}
	if id >= NumMotors {
		return fmt.Errorf("%w: motor id %d (wire ids are 0..3)", ErrOutOfRange, id)
	}
	return nil
}

// EncodeMotorSpeeds encodes a set-several-motors frame (sub 0x01). Any non-finite or out-of-range speed or id
// refuses the whole frame: nothing partial reaches the wire.
func EncodeMotorSpeeds(speeds ...MotorSpeed) ([]byte, error) {
	if len(speeds) == 0 || len(speeds) > NumMotors {
		return nil, fmt.Errorf("%w: %d motors in one frame (1..4)", ErrOutOfRange, len(speeds))
	}
	p := make([]byte, 2, 2+5*len(speeds))
	p[0], p[1] = motorSetMany, byte(len(speeds))
	for _, s := range speeds {
		if err := checkRPS(s.ID, float64(s.RPS)); err != nil {
			return nil, err
		}
		p = append(p, s.ID)
		p = binary.LittleEndian.AppendUint32(p, math.Float32bits(s.RPS))
	}
	return EncodeFrame(FuncMotor, p)
}

// EncodeWheelRPS encodes the frame the driver sends every tick: all four motors (wire ids 0..3) at once.
func EncodeWheelRPS(rps [4]float64) ([]byte, error) {
	var s [4]MotorSpeed
	for i, r := range rps {
		if err := checkRPS(uint8(i), r); err != nil { // checked as float64: no silent overflow to float32 Inf
			return nil, err
		}
		s[i] = MotorSpeed{ID: uint8(i), RPS: float32(r)}
	}
	return EncodeMotorSpeeds(s[:]...)
}

var stopFrame = func() []byte {
	b, err := EncodeWheelRPS([4]float64{})
	if err != nil {
		panic(err)
	}
	return b
}()

// StopFrame returns the stop frame (sub 0x01, motors 0..3 at 0.0): the exact bytes that stopped the wheels on
// 2026-09-27. A fresh copy each call, so no caller can corrupt the next one.
func StopFrame() []byte { return append([]byte(nil), stopFrame...) }

// IsStopFrame reports whether b is exactly the stop frame.
func IsStopFrame(b []byte) bool { return string(b) == string(stopFrame) }

// EncodeMotorSingle encodes a one-motor set-speed frame (sub 0x00).
func EncodeMotorSingle(id uint8, rps float32) ([]byte, error) {
	if err := checkRPS(id, float64(rps)); err != nil {
		return nil, err
	}
	p := binary.LittleEndian.AppendUint32([]byte{motorSetOne, id}, math.Float32bits(rps))
	return EncodeFrame(FuncMotor, p)
}

// EncodeMotorStopOne encodes a stop-one-motor frame (sub 0x02).
func EncodeMotorStopOne(id uint8) []byte { return mustFrame(FuncMotor, []byte{motorStopOne, id}) }

// EncodeMotorStopMask encodes a stop-by-mask frame (sub 0x03; bits 0-3 are motors 0-3).
func EncodeMotorStopMask(mask uint8) []byte { return mustFrame(FuncMotor, []byte{motorStopMask, mask}) }

// MotorCmdKind is the kind of a MOTOR frame.
type MotorCmdKind uint8

// Motor command kinds, by sub-command.
const (
	MotorSetOne   MotorCmdKind = iota // Speeds has one entry
	MotorSetMany                      // Speeds has 1..4 entries
	MotorStopOne                      // Mask has the one motor's bit
	MotorStopMask                     // Mask as sent
)

func (k MotorCmdKind) String() string {
	switch k {
	case MotorSetOne:
		return "set_one"
	case MotorSetMany:
		return "set_many"
	case MotorStopOne:
		return "stop_one"
	case MotorStopMask:
		return "stop_mask"
	}
	return fmt.Sprintf("motor_kind_%d", uint8(k))
}

// MotorCommand is a decoded host -> board MOTOR frame (the simulator's view of what the driver sent).
// Decoding does not range-check speeds: like the firmware, it reports what was sent, NaN included.
type MotorCommand struct {
	Kind   MotorCmdKind
	Speeds []MotorSpeed
	Mask   uint8
}

// DecodeMotor decodes a MOTOR payload.
func DecodeMotor(p []byte) (MotorCommand, error) {
	if len(p) < 2 {
		return MotorCommand{}, payloadErr(FuncMotor, p, ErrPayloadSize)
	}
	switch p[0] {
	case motorSetOne:
		if len(p) != 6 {
			return MotorCommand{}, payloadErr(FuncMotor, p, ErrPayloadSize)
		}
		return MotorCommand{Kind: MotorSetOne, Speeds: []MotorSpeed{{ID: p[1], RPS: f32(p[2:])}}}, nil
	case motorSetMany:
		n := int(p[1])
		if n == 0 || n > 8 || len(p) != 2+5*n {
			return MotorCommand{}, payloadErr(FuncMotor, p, ErrPayloadSize)
		}
		c := MotorCommand{Kind: MotorSetMany, Speeds: make([]MotorSpeed, n)}
		for i := range n {
			o := 2 + 5*i
			c.Speeds[i] = MotorSpeed{ID: p[o], RPS: f32(p[o+1:])}
		}
		return c, nil
	case motorStopOne:
		if len(p) != 2 {
			return MotorCommand{}, payloadErr(FuncMotor, p, ErrPayloadSize)
		}
		if p[1] >= 8 { // no bit of Mask can show it; id&7 would name a different wheel
			return MotorCommand{}, payloadErr(FuncMotor, p, ErrOutOfRange)
		}
		return MotorCommand{Kind: MotorStopOne, Mask: 1 << p[1]}, nil
	case motorStopMask:
		if len(p) != 2 {
			return MotorCommand{}, payloadErr(FuncMotor, p, ErrPayloadSize)
		}
		return MotorCommand{Kind: MotorStopMask, Mask: p[1]}, nil
	}
	return MotorCommand{}, payloadErr(FuncMotor, p, ErrWrongSubcode)
}

func f32(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

func putF32(b []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
}

// Buzzer is a BUZZER command: frequency, on time, off time, repeat count. An off time of 0 left the buzzer
// sounding continuously on the robot (2026-09-29); use 100 ms like the SDK examples.
type Buzzer struct{ FreqHz, OnMs, OffMs, Repeat uint16 }

// EncodeBuzzer encodes a BUZZER frame (<HHHH>).
func EncodeBuzzer(b Buzzer) []byte {
	p := make([]byte, 0, 8)
	for _, v := range [...]uint16{b.FreqHz, b.OnMs, b.OffMs, b.Repeat} {
		p = binary.LittleEndian.AppendUint16(p, v)
	}
	return mustFrame(FuncBuzzer, p)
}

// DecodeBuzzer decodes a BUZZER payload.
func DecodeBuzzer(p []byte) (Buzzer, error) {
	if len(p) != 8 {
		return Buzzer{}, payloadErr(FuncBuzzer, p, ErrPayloadSize)
	}
	u := binary.LittleEndian.Uint16
	return Buzzer{u(p), u(p[2:]), u(p[4:]), u(p[6:])}, nil
}

// LED is an LED command: id, on time, off time, repeat count.
type LED struct {
	ID                  uint8
	OnMs, OffMs, Repeat uint16
}

// EncodeLED encodes an LED frame (<BHHH>).
func EncodeLED(l LED) []byte {
	p := []byte{l.ID}
	for _, v := range [...]uint16{l.OnMs, l.OffMs, l.Repeat} {
		p = binary.LittleEndian.AppendUint16(p, v)
	}
	return mustFrame(FuncLED, p)
}

// DecodeLED decodes an LED payload.
func DecodeLED(p []byte) (LED, error) {
	if len(p) != 7 {
		return LED{}, payloadErr(FuncLED, p, ErrPayloadSize)
	}
	u := binary.LittleEndian.Uint16
	return LED{p[0], u(p[1:]), u(p[3:]), u(p[5:])}, nil
}

// StandardGravity is one g in m/s² (the seed's G): the board reports acceleration in g. The one definition
// for the driver, the capture's decoded channel and the simulator.
const StandardGravity = 9.80665

// IMU is one IMU report: acceleration in g and angular rate in deg/s, as the board sends them (~110 Hz).
type IMU struct {
	Accel [3]float32 // g
	Gyro  [3]float32 // deg/s
}

// EncodeIMU encodes an IMU frame (six float32: ax ay az gx gy gz). The simulator's board uses it.
func EncodeIMU(m IMU) []byte {
	p := make([]byte, 0, 24)
	for _, v := range m.Accel {
		p = putF32(p, v)
	}
	for _, v := range m.Gyro {
		p = putF32(p, v)
	}
	return mustFrame(FuncIMU, p)
}

// DecodeIMU decodes an IMU payload. Non-finite values are refused: a real IMU never sends them.
func DecodeIMU(p []byte) (IMU, error) {
	if len(p) != 24 {
		return IMU{}, payloadErr(FuncIMU, p, ErrPayloadSize)
	}
	var m IMU
	for i := range 3 {
		m.Accel[i] = f32(p[4*i:])
		m.Gyro[i] = f32(p[12+4*i:])
	}
	for _, v := range [...]float32{m.Accel[0], m.Accel[1], m.Accel[2], m.Gyro[0], m.Gyro[1], m.Gyro[2]} {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return IMU{}, payloadErr(FuncIMU, p, ErrNonFinite)
		}
	}
	return m, nil
}

// sysBattery is the SYS sub-code of a battery report.
const sysBattery byte = 0x04

// Battery is a battery report (SYS 0x04): pack voltage in millivolts, about once a second.
type Battery struct{ MilliVolts uint16 }

// Volts returns the voltage in volts.
func (b Battery) Volts() float64 { return float64(b.MilliVolts) / 1000 }

// EncodeBattery encodes a battery report frame.
func EncodeBattery(b Battery) []byte {
	return mustFrame(FuncSys, binary.LittleEndian.AppendUint16([]byte{sysBattery}, b.MilliVolts))
}

// DecodeBattery decodes a SYS payload carrying a battery report.
func DecodeBattery(p []byte) (Battery, error) {
	if len(p) != 3 {
		return Battery{}, payloadErr(FuncSys, p, ErrPayloadSize)
	}
	if p[0] != sysBattery {
		return Battery{}, payloadErr(FuncSys, p, ErrWrongSubcode)
	}
	return Battery{MilliVolts: binary.LittleEndian.Uint16(p[1:])}, nil
}

// Gamepad button bits defined by the firmware.
const (
	BtnL2       uint16 = 0x0001
	BtnR2       uint16 = 0x0002
	BtnSelect   uint16 = 0x0004
	BtnStart    uint16 = 0x0008
	BtnL3       uint16 = 0x0020
	BtnR3       uint16 = 0x0040
	BtnCross    uint16 = 0x0100
	BtnCircle   uint16 = 0x0200
	BtnSquare   uint16 = 0x0800
	BtnTriangle uint16 = 0x1000
	BtnL1       uint16 = 0x4000
	BtnR1       uint16 = 0x8000
)

// DefaultModeBit is the bit number this toolkit assumes for the pad's MODE button (0x0010). The firmware
// defines none; the driver keeps it as the pad_mode_bit parameter.
const DefaultModeBit = 4

// Gamepad is one gamepad report (<HB4b>): button bits, hat, and four axes as int8 (raw/127 gives -1..1).
type Gamepad struct {
	Buttons        uint16
	Hat            uint8
	LX, LY, RX, RY int8
}

// Axes returns the four axes scaled to -1..1 (raw/127, clamped: -128 would be just below -1).
func (g Gamepad) Axes() [4]float64 {
	var a [4]float64
	for i, v := range [...]int8{g.LX, g.LY, g.RX, g.RY} {
		a[i] = max(-1, float64(v)/127)
	}
	return a
}

// EncodeGamepad encodes a gamepad frame.
func EncodeGamepad(g Gamepad) []byte {
	p := binary.LittleEndian.AppendUint16(make([]byte, 0, 7), g.Buttons)
	p = append(p, g.Hat, byte(g.LX), byte(g.LY), byte(g.RX), byte(g.RY))
	return mustFrame(FuncGamepad, p)
}

// DecodeGamepad decodes a gamepad payload.
func DecodeGamepad(p []byte) (Gamepad, error) {
	if len(p) != 7 {
		return Gamepad{}, payloadErr(FuncGamepad, p, ErrPayloadSize)
	}
	return Gamepad{Buttons: binary.LittleEndian.Uint16(p), Hat: p[2],
		LX: int8(p[3]), LY: int8(p[4]), RX: int8(p[5]), RY: int8(p[6])}, nil
}

// Key event bits.
const (
	KeyPressed       uint8 = 0x01
	KeyLongPress     uint8 = 0x02
	KeyLongRepeat    uint8 = 0x04
	KeyReleaseFromLP uint8 = 0x08
	KeyReleaseFromSP uint8 = 0x10
	KeyClick         uint8 = 0x20
	KeyDouble        uint8 = 0x40
	KeyTriple        uint8 = 0x80
	keyPayloadLen          = 2
)

// Key is a board key event: key id (1 or 2) and event bits.
type Key struct{ ID, Event uint8 }

// EncodeKey encodes a key frame.
func EncodeKey(k Key) []byte { return mustFrame(FuncKey, []byte{k.ID, k.Event}) }

// DecodeKey decodes a key payload.
func DecodeKey(p []byte) (Key, error) {
	if len(p) != keyPayloadLen {
		return Key{}, payloadErr(FuncKey, p, ErrPayloadSize)
	}
	return Key{ID: p[0], Event: p[1]}, nil
}

// Decode returns the typed value of a frame: IMU, Battery, Gamepad, Key, MotorCommand, Buzzer or LED.
// Frames of known but undecoded functions (servos, SBUS, OLED, RGB) return ErrUnknownFunc wrapped in a
// PayloadError, so callers can count them apart from malformed payloads.
func Decode(f Frame) (any, error) {
	switch f.Func {
	case FuncIMU:
		return DecodeIMU(f.Payload)
	case FuncSys:
		return DecodeBattery(f.Payload)
	case FuncGamepad:
		return DecodeGamepad(f.Payload)
	case FuncKey:
		return DecodeKey(f.Payload)
	case FuncMotor:
		return DecodeMotor(f.Payload)
	case FuncBuzzer:
		return DecodeBuzzer(f.Payload)
	case FuncLED:
		return DecodeLED(f.Payload)
	}
	return nil, payloadErr(f.Func, f.Payload, ErrUnknownFunc)
}
