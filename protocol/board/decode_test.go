package board

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// parseOne runs raw through a Parser and returns its single frame.
func parseOne(t *testing.T, raw []byte) Frame {
	t.Helper()
	r := whole(raw)
	if len(r.Items) != 1 || r.Pending != 0 || r.Stats.SkippedBytes != 0 {
		t.Fatalf("% X: %d frames, stats %+v, pending %d; want exactly one frame", raw, len(r.Items), r.Stats, r.Pending)
	}
	return r.Items[0]
}

func mustEnc(t *testing.T) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// TestRoundTripEveryPayload encodes a value of every payload type, parses the bytes and decodes the frame,
// with both the typed decoder and Decode.
func TestRoundTripEveryPayload(t *testing.T) {
	enc := mustEnc(t)
	cases := []struct {
		name  string
		raw   []byte
		fn    byte
		value any
		typed func([]byte) (any, error)
	}{
		{"imu", EncodeIMU(IMU{Accel: [3]float32{0.01, -0.5, 0.98}, Gyro: [3]float32{-250, 0, float32(math.SmallestNonzeroFloat32)}}), FuncIMU,
			IMU{Accel: [3]float32{0.01, -0.5, 0.98}, Gyro: [3]float32{-250, 0, float32(math.SmallestNonzeroFloat32)}},
			func(p []byte) (any, error) { return DecodeIMU(p) }},
		{"imu negative zero", EncodeIMU(IMU{Gyro: [3]float32{float32(math.Copysign(0, -1))}}), FuncIMU,
			IMU{Gyro: [3]float32{float32(math.Copysign(0, -1))}}, func(p []byte) (any, error) { return DecodeIMU(p) }},
		{"battery", EncodeBattery(Battery{65535}), FuncSys, Battery{65535}, func(p []byte) (any, error) { return DecodeBattery(p) }},
		{"gamepad", EncodeGamepad(Gamepad{Buttons: BtnL1 | BtnR1 | 1<<DefaultModeBit, Hat: 8, LX: -128, LY: 127, RX: -1, RY: 0}), FuncGamepad,
			Gamepad{Buttons: BtnL1 | BtnR1 | 1<<DefaultModeBit, Hat: 8, LX: -128, LY: 127, RX: -1, RY: 0},
			func(p []byte) (any, error) { return DecodeGamepad(p) }},
		{"key", EncodeKey(Key{ID: 2, Event: KeyDouble | KeyReleaseFromSP}), FuncKey, Key{2, KeyDouble | KeyReleaseFromSP},
			func(p []byte) (any, error) { return DecodeKey(p) }},
		{"buzzer", EncodeBuzzer(Buzzer{65535, 1, 0, 65535}), FuncBuzzer, Buzzer{65535, 1, 0, 65535},
			func(p []byte) (any, error) { return DecodeBuzzer(p) }},
		{"led", EncodeLED(LED{255, 0, 65535, 1}), FuncLED, LED{255, 0, 65535, 1},
			func(p []byte) (any, error) { return DecodeLED(p) }},
		{"wheels", enc(EncodeWheelRPS([4]float64{MaxRPS, -MaxRPS, 0.001, -0.3})), FuncMotor,
			MotorCommand{Kind: MotorSetMany, Speeds: []MotorSpeed{{0, MaxRPS}, {1, -MaxRPS}, {2, 0.001}, {3, -0.3}}},
			func(p []byte) (any, error) { return DecodeMotor(p) }},
		{"three motors", enc(EncodeMotorSpeeds(MotorSpeed{3, 1}, MotorSpeed{0, 2}, MotorSpeed{2, -4.5})), FuncMotor,
			MotorCommand{Kind: MotorSetMany, Speeds: []MotorSpeed{{3, 1}, {0, 2}, {2, -4.5}}},
			func(p []byte) (any, error) { return DecodeMotor(p) }},
		{"one motor", enc(EncodeMotorSingle(3, 2.5)), FuncMotor, MotorCommand{Kind: MotorSetOne, Speeds: []MotorSpeed{{3, 2.5}}},
			func(p []byte) (any, error) { return DecodeMotor(p) }},
		{"stop one", EncodeMotorStopOne(2), FuncMotor, MotorCommand{Kind: MotorStopOne, Mask: 0x04},
			func(p []byte) (any, error) { return DecodeMotor(p) }},
		{"stop mask", EncodeMotorStopMask(0x05), FuncMotor, MotorCommand{Kind: MotorStopMask, Mask: 0x05},
			func(p []byte) (any, error) { return DecodeMotor(p) }},
		{"stop frame", StopFrame(), FuncMotor,
			MotorCommand{Kind: MotorSetMany, Speeds: []MotorSpeed{{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
			func(p []byte) (any, error) { return DecodeMotor(p) }},
	}
	for _, c := range cases {
		f := parseOne(t, c.raw)
		if f.Func != c.fn {
			t.Errorf("%s: function %d, want %d", c.name, f.Func, c.fn)
		}
		for how, dec := range map[string]func([]byte) (any, error){"typed": c.typed, "Decode": func(p []byte) (any, error) { return Decode(Frame{f.Func, p}) }} {
			v, err := dec(f.Payload)
			if err != nil {
				t.Errorf("%s (%s): %v", c.name, how, err)
				continue
			}
			if !reflect.DeepEqual(v, c.value) || fmt.Sprint(v) != fmt.Sprint(c.value) {
				t.Errorf("%s (%s): got %+v, want %+v", c.name, how, v, c.value)
			}
		}
		// Bit-exact floats (-0 stays -0): re-encoding the decoded value gives the same bytes.
		if v, err := Decode(f); err == nil {
			if again := reencode(t, v); !bytes.Equal(again, c.raw) {
				t.Errorf("%s: re-encoded % X, want % X", c.name, again, c.raw)
			}
		}
	}
}

// reencode encodes a decoded value with the package's public encoders; nil if they refuse it.
func reencode(t testing.TB, v any) []byte {
	t.Helper()
	switch v := v.(type) {
	case IMU:
		return EncodeIMU(v)
	case Battery:
		return EncodeBattery(v)
	case Gamepad:
		return EncodeGamepad(v)
	case Key:
		return EncodeKey(v)
	case Buzzer:
		return EncodeBuzzer(v)
	case LED:
		return EncodeLED(v)
	case MotorCommand:
		var b []byte
		var err error
		switch v.Kind {
		case MotorSetMany:
			b, err = EncodeMotorSpeeds(v.Speeds...)
		case MotorSetOne:
			b, err = EncodeMotorSingle(v.Speeds[0].ID, v.Speeds[0].RPS)
		case MotorStopOne:
			if bitsSet(v.Mask) != 1 {
				t.Fatalf("stop-one command with mask %#02x: not one motor", v.Mask)
			}
			id := uint8(0)
			for v.Mask>>id != 1 {
				id++
			}
			return EncodeMotorStopOne(id)
		case MotorStopMask:
			return EncodeMotorStopMask(v.Mask)
		}
		if err != nil {
			return nil
		}
		return b
	}
	t.Fatalf("no encoder for %T", v)
	return nil
}

func bitsSet(b uint8) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// TestDecodeWrongSizes gives every decoder every payload length but its own: each must fail with an error
// that wraps ErrPayloadSize and carries the refused bytes.
func TestDecodeWrongSizes(t *testing.T) {
	decoders := []struct {
		fn   byte
		ok   func(n int) bool
		dec  func([]byte) error
		fill byte
	}{
		{FuncIMU, func(n int) bool { return n == 24 }, func(p []byte) error { _, err := DecodeIMU(p); return err }, 0},
		{FuncSys, func(n int) bool { return n == 3 }, func(p []byte) error { _, err := DecodeBattery(p); return err }, 0x04},
		{FuncGamepad, func(n int) bool { return n == 7 }, func(p []byte) error { _, err := DecodeGamepad(p); return err }, 0},
		{FuncKey, func(n int) bool { return n == 2 }, func(p []byte) error { _, err := DecodeKey(p); return err }, 0},
		{FuncBuzzer, func(n int) bool { return n == 8 }, func(p []byte) error { _, err := DecodeBuzzer(p); return err }, 0},
		{FuncLED, func(n int) bool { return n == 7 }, func(p []byte) error { _, err := DecodeLED(p); return err }, 0},
		// set-many with n = 1 (payload 01 01 ...): only 7 bytes fit.
		{FuncMotor, func(n int) bool { return n == 7 }, func(p []byte) error { _, err := DecodeMotor(p); return err }, 0x01},
	}
	for _, d := range decoders {
		for n := range 40 {
			if d.ok(n) {
				continue
			}
			p := bytes.Repeat([]byte{d.fill}, n)
			if n > 1 && d.fn == FuncMotor {
				p[1] = 1
			}
			for _, err := range []error{d.dec(p), decodeErr(Frame{d.fn, p})} {
				if !errors.Is(err, ErrPayloadSize) {
					t.Fatalf("%s payload of %d bytes: error %v, want ErrPayloadSize", FuncName(d.fn), n, err)
				}
				var pe *PayloadError
				if !errors.As(err, &pe) || pe.Func != d.fn || !bytes.Equal(pe.Payload, p) {
					t.Fatalf("%s payload of %d bytes: error %#v does not carry the payload", FuncName(d.fn), n, err)
				}
				if n > 0 && !strings.Contains(err.Error(), fmt.Sprintf("% x", p)) {
					t.Fatalf("%s payload of %d bytes: message %q does not show the bytes", FuncName(d.fn), n, err)
				}
			}
		}
	}
	// The error owns its copy of the payload: the parser reuses its buffer.
	p := []byte{1, 2, 3}
	_, err := DecodeKey(p)
	p[0] = 0xFF
	var pe *PayloadError
	if !errors.As(err, &pe) || pe.Payload[0] != 1 {
		t.Fatalf("PayloadError aliases the caller's payload: %v", err)
	}
}

func decodeErr(f Frame) error { _, err := Decode(f); return err }

func TestDecodeOtherErrors(t *testing.T) {
	cases := []struct {
		f    Frame
		want error
	}{
		{Frame{FuncSys, []byte{0x05, 0xE8, 0x1C}}, ErrWrongSubcode},           // SYS, not a battery report
		{Frame{FuncMotor, []byte{0x04, 0x00}}, ErrWrongSubcode},               // no motor sub-command 4
		{Frame{FuncMotor, []byte{0x01, 0x00}}, ErrPayloadSize},                // set zero motors
		{Frame{FuncMotor, []byte{0x01, 0x09, 0, 0, 0, 0, 0}}, ErrPayloadSize}, // count byte says 9
		{Frame{FuncIMU, EncodeIMU(IMU{})[4:28]}, nil},
		{Frame{FuncIMU, imuPayloadWith(math.NaN())}, ErrNonFinite},
		{Frame{FuncIMU, imuPayloadWith(math.Inf(-1))}, ErrNonFinite},
		{Frame{FuncBusServo, []byte{1, 2, 3}}, ErrUnknownFunc},
		{Frame{FuncSBUS, nil}, ErrUnknownFunc},
		{Frame{200, nil}, ErrUnknownFunc},
	}
	for _, c := range cases {
		err := decodeErr(c.f)
		if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
			t.Errorf("Decode(%s % x): error %v, want %v", FuncName(c.f.Func), c.f.Payload, err, c.want)
		}
		if err != nil {
			var pe *PayloadError
			if !errors.As(err, &pe) || !bytes.Equal(pe.Payload, c.f.Payload) {
				t.Errorf("Decode(%s % x): %v is not a PayloadError with the bytes", FuncName(c.f.Func), c.f.Payload, err)
			}
		}
	}
}

func imuPayloadWith(v float64) []byte {
	return EncodeIMU(IMU{Accel: [3]float32{0, float32(v), 1}})[4:28]
}

// TestDecodeMotorStopOneIDOutOfMask: a stop-one frame for id 8 or more cannot be shown as a one-motor mask.
// Before the fix it decoded as a stop of motor id&7 (id 9 as motor 1), hiding a driver bug from the
// simulator behind a plausible command for a different wheel.
func TestDecodeMotorStopOneIDOutOfMask(t *testing.T) {
	for id := range 256 {
		c, err := DecodeMotor([]byte{0x02, byte(id)})
		if id < 8 {
			if err != nil || c.Kind != MotorStopOne || c.Mask != 1<<id {
				t.Fatalf("stop one id %d: %+v, %v", id, c, err)
			}
			continue
		}
		if !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("stop one id %d: decoded as %+v (err %v), want ErrOutOfRange", id, c, err)
		}
	}
}

// TestMotorEncodersRefuse: no motor encoder returns bytes for a non-finite speed, a speed beyond MaxRPS or an
// id beyond the four wheels.
func TestMotorEncodersRefuse(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	speeds := []struct {
		v    float64
		want error
	}{
		{nan, ErrNonFinite}, {-nan, ErrNonFinite}, {inf, ErrNonFinite}, {-inf, ErrNonFinite},
		{math.Float64frombits(0x7FF0000000000001), ErrNonFinite}, // signalling NaN
		{MaxRPS + 1e-9, ErrOutOfRange}, {-MaxRPS - 1e-9, ErrOutOfRange}, {6, ErrOutOfRange}, {-100, ErrOutOfRange},
		// Finite as float64 but Inf as float32: must be refused before the conversion.
		{math.MaxFloat32 * 2, ErrOutOfRange}, {-1e39, ErrOutOfRange}, {math.MaxFloat64, ErrOutOfRange},
	}
	for _, s := range speeds {
		for slot := range 4 {
			var rps [4]float64
			rps[slot] = s.v
			b, err := EncodeWheelRPS(rps)
			if !errors.Is(err, s.want) || b != nil {
				t.Errorf("EncodeWheelRPS(%v in slot %d) = % X, %v; want no bytes and %v", s.v, slot, b, err, s.want)
			}
		}
		f32 := float32(s.v) // NaN stays NaN, 1e39 becomes Inf: both refused
		want := s.want
		if math.IsInf(float64(f32), 0) {
			want = ErrNonFinite
		}
		if math.Abs(float64(f32)) <= MaxRPS {
			continue // MaxRPS+1e-9 rounds to exactly MaxRPS in float32: allowed
		}
		if b, err := EncodeMotorSingle(1, f32); !errors.Is(err, want) || b != nil {
			t.Errorf("EncodeMotorSingle(1, %v) = % X, %v; want no bytes and %v", f32, b, err, want)
		}
		if b, err := EncodeMotorSpeeds(MotorSpeed{0, 1}, MotorSpeed{1, f32}); !errors.Is(err, want) || b != nil {
			t.Errorf("EncodeMotorSpeeds(.., %v) = % X, %v; want no bytes and %v", f32, b, err, want)
		}
	}
	for _, id := range []uint8{4, 5, 8, 255} {
		if b, err := EncodeMotorSingle(id, 1); !errors.Is(err, ErrOutOfRange) || b != nil {
			t.Errorf("EncodeMotorSingle(id %d) = % X, %v; want ErrOutOfRange", id, b, err)
		}
		if b, err := EncodeMotorSpeeds(MotorSpeed{0, 1}, MotorSpeed{id, 0}); !errors.Is(err, ErrOutOfRange) || b != nil {
			t.Errorf("EncodeMotorSpeeds(id %d) = % X, %v; want ErrOutOfRange", id, b, err)
		}
	}
	for _, n := range []int{0, 5, 8} {
		s := make([]MotorSpeed, n)
		for i := range s {
			s[i].ID = uint8(i % 4)
		}
		if b, err := EncodeMotorSpeeds(s...); !errors.Is(err, ErrOutOfRange) || b != nil {
			t.Errorf("EncodeMotorSpeeds with %d motors = % X, %v; want ErrOutOfRange", n, b, err)
		}
	}
	// The limit itself is allowed.
	if _, err := EncodeWheelRPS([4]float64{MaxRPS, -MaxRPS, 0, 0}); err != nil {
		t.Errorf("EncodeWheelRPS at exactly ±MaxRPS: %v", err)
	}
}

// TestWheelRPSNeverPutsNonFiniteOnTheWire sweeps float64 magnitudes from 1e-320 to the largest float64: every
// frame EncodeWheelRPS returns decodes to finite speeds within MaxRPS, and no error leaves bytes behind.
func TestWheelRPSNeverPutsNonFiniteOnTheWire(t *testing.T) {
	for e := -320.0; e <= 308; e += 0.25 {
		for _, sign := range []float64{1, -1} {
			v := sign * math.Pow(10, e)
			b, err := EncodeWheelRPS([4]float64{v, -v, v / 3, 0})
			if err != nil {
				if b != nil {
					t.Fatalf("%v: error %v with bytes % X", v, err, b)
				}
				continue
			}
			f := parseOne(t, b)
			c, err := DecodeMotor(f.Payload)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.Speeds {
				r := float64(s.RPS)
				if math.IsNaN(r) || math.IsInf(r, 0) || math.Abs(r) > MaxRPS {
					t.Fatalf("EncodeWheelRPS(%v) put %v on the wire", v, s.RPS)
				}
			}
		}
	}
}

func TestGamepadAxes(t *testing.T) {
	a := Gamepad{LX: -128, LY: -127, RX: 127, RY: 0}.Axes()
	if a != [4]float64{-1, -1, 1, 0} {
		t.Fatalf("Axes = %v, want [-1 -1 1 0]", a)
	}
}

func TestFuncName(t *testing.T) {
	if FuncName(FuncIMU) != "imu" || FuncName(FuncRGB) != "rgb" || FuncName(FuncCount) != "func_12" {
		t.Fatal(FuncName(FuncIMU), FuncName(FuncRGB), FuncName(FuncCount))
	}
}

func TestEncodeFrameLimits(t *testing.T) {
	if _, err := EncodeFrame(FuncLED, make([]byte, 256)); !errors.Is(err, ErrTooLong) {
		t.Errorf("256-byte payload: %v, want ErrTooLong", err)
	}
	if b, err := EncodeFrame(FuncLED, make([]byte, 255)); err != nil || len(b) != 260 {
		t.Errorf("255-byte payload: %d bytes, %v", len(b), err)
	}
	if _, err := EncodeFrame(FuncCount, nil); !errors.Is(err, ErrUnknownFunc) {
		t.Errorf("function 12: %v, want ErrUnknownFunc", err)
	}
	dst := []byte{1, 2}
	if out, err := AppendFrame(dst, 99, nil); err == nil || !bytes.Equal(out, dst) {
		t.Errorf("AppendFrame error must leave dst as it was: % X, %v", out, err)
	}
	if !IsStopFrame(StopFrame()) || IsStopFrame(EncodeMotorStopMask(0x0F)) {
		t.Error("IsStopFrame")
	}
	s := StopFrame()
	s[5] = 9
	if !IsStopFrame(StopFrame()) {
		t.Error("StopFrame returns shared memory: a caller corrupted the next stop frame")
	}
}
