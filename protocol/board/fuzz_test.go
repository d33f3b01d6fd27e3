package board

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// Run locally with, for example:
//
//	go test -run '^$' -fuzz '^FuzzBoardParser$' -fuzztime 20s ./protocol/board
//
// Crashers land in testdata/fuzz/<FuzzName>/ and are replayed by every plain `go test`.

func goldenBytes(t testing.TB) [][]byte {
	var out [][]byte
	for _, g := range golden {
		b, err := g.encode()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzBoardParser: the parser never panics; every frame it emits sits at the offset the byte accounting
// predicts and carries a CRC that verifies there; feeding the input in two chunks split anywhere gives the
// whole-buffer output; the output equals the reference model's; decoding an emitted frame never panics.
func FuzzBoardParser(f *testing.F) {
	gold := goldenBytes(f)
	for i, g := range gold {
		f.Add(g, uint(i))
	}
	f.Add(bytes.Join(gold, nil), uint(17))
	aa55, _ := aa55Frames(f)
	for i, g := range aa55 {
		d := bytes.Clone(g)
		d[0] = 0
		f.Add(append(d, bytes.Join(gold, nil)...), uint(i*5))
	}
	f.Add([]byte{0xAA, 0x55, 0xAA, 0x55, 0x00, 0x03, 0x04, 0xE8, 0x1C, 0x2B}, uint(3))
	f.Add(hostileBoardStream(f).data[:600], uint(300))

	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		var p Parser
		var frames []Frame
		var frameBytes uint64
		p.Feed(data, func(fr Frame) {
			off := frameBytes + p.Stats().SkippedBytes
			size := uint64(len(fr.Payload) + Overhead)
			if off+size > uint64(len(data)) {
				t.Fatalf("frame of %d bytes at offset %d runs past the %d-byte input", size, off, len(data))
			}
			raw := data[off : off+size]
			if raw[0] != Header0 || raw[1] != Header1 || raw[2] != fr.Func || int(raw[3]) != len(fr.Payload) ||
				!bytes.Equal(raw[4:size-1], fr.Payload) {
				t.Fatalf("emitted %s % x, input at offset %d is % x", FuncName(fr.Func), fr.Payload, off, raw)
			}
			if CRC8(raw[2:size-1]) != raw[size-1] {
				t.Fatalf("emitted a frame whose CRC does not verify: % x", raw)
			}
			if fr.Func >= FuncCount {
				t.Fatalf("emitted unknown function %d", fr.Func)
			}
			frames = append(frames, Frame{fr.Func, bytes.Clone(fr.Payload)})
			frameBytes += size
			if v, err := Decode(fr); err == nil {
				_ = reencode(t, v)
			}
		})
		got := result{Items: frames, Stats: p.Stats(), Pending: p.Pending()}
		checkAccounting(t, len(data), got)

		two := feedChunks(data, streamtest.SplitAt(len(data), split))
		checkResult(t, "two chunks", two, got)

		ref, st, pend := refParse(data)
		checkResult(t, "reference model", got, result{Items: ref, Stats: st, Pending: pend})
	})
}

// FuzzBoardDecode: Decode never panics on any function code and payload; its errors are PayloadErrors that
// carry the bytes and wrap a sentinel; a decoded value re-encodes to the same frame, unless it is a motor
// command the encoders refuse (non-finite or out-of-range speed, id beyond the wheels, too many motors).
// The same input, read as values, round trips encode -> parse -> decode.
func FuzzBoardDecode(f *testing.F) {
	for _, g := range goldenBytes(f) {
		f.Add(g[2], g[4:len(g)-1])
	}
	f.Add(FuncIMU, EncodeIMU(IMU{Accel: [3]float32{0, 0, 1}})[4:28])
	f.Add(FuncGamepad, EncodeGamepad(padAA55)[4:11])
	f.Add(FuncKey, []byte{1, KeyClick})
	f.Add(FuncMotor, []byte{0x02, 0x09})
	f.Add(FuncMotor, []byte{0x01, 0x01, 0x07, 0x00, 0x00, 0xC0, 0x7F}) // NaN speed, id 7

	f.Fuzz(func(t *testing.T, fn byte, payload []byte) {
		v, err := Decode(Frame{fn, payload})
		if err != nil {
			var pe *PayloadError
			if !errors.As(err, &pe) || pe.Func != fn || !bytes.Equal(pe.Payload, payload) {
				t.Fatalf("error %v is not a PayloadError carrying % x", err, payload)
			}
			known := false
			for _, s := range []error{ErrPayloadSize, ErrWrongSubcode, ErrUnknownFunc, ErrNonFinite, ErrOutOfRange} {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("error %v wraps no sentinel", err)
			}
		} else {
			raw, err := EncodeFrame(fn, payload)
			if err != nil {
				t.Fatalf("decoded %+v from a payload EncodeFrame refuses: %v", v, err)
			}
			again := reencode(t, v)
			if again == nil {
				if !refusable(v) {
					t.Fatalf("encoders refused %+v, a valid command", v)
				}
			} else if !bytes.Equal(again, raw) {
				t.Fatalf("decoded %+v re-encodes to % X, frame was % X", v, again, raw)
			}
		}
		roundTripValues(t, payload)
	})
}

// refusable reports whether v is a motor command the encoders must refuse.
func refusable(v any) bool {
	c, ok := v.(MotorCommand)
	if !ok {
		return false
	}
	if len(c.Speeds) > NumMotors {
		return true
	}
	for _, s := range c.Speeds {
		r := float64(s.RPS)
		if math.IsNaN(r) || math.IsInf(r, 0) || math.Abs(r) > MaxRPS || s.ID >= NumMotors {
			return true
		}
	}
	return false
}

// roundTripValues reads b (zero-padded) as values of every type, encodes them, parses the frame and decodes
// it back.
func roundTripValues(t *testing.T, b []byte) {
	b = append(bytes.Clone(b), make([]byte, 32)...)
	u16 := func(i int) uint16 { return binary.LittleEndian.Uint16(b[i:]) }
	check := func(raw []byte, want any) {
		t.Helper()
		fr := parseOne(t, raw)
		got, err := Decode(fr)
		if err != nil {
			t.Fatalf("encoded %+v as % X, decode: %v", want, raw, err)
		}
		if !equalValue(got, want) {
			t.Fatalf("encoded %+v as % X, decoded %+v", want, raw, got)
		}
	}
	var imu IMU
	finite := true
	for i := range 3 {
		imu.Accel[i], imu.Gyro[i] = f32(b[4*i:]), f32(b[12+4*i:])
		for _, x := range []float32{imu.Accel[i], imu.Gyro[i]} {
			finite = finite && !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
		}
	}
	if finite {
		check(EncodeIMU(imu), imu)
	}
	check(EncodeBattery(Battery{u16(0)}), Battery{u16(0)})
	g := Gamepad{u16(0), b[2], int8(b[3]), int8(b[4]), int8(b[5]), int8(b[6])}
	check(EncodeGamepad(g), g)
	check(EncodeKey(Key{b[0], b[1]}), Key{b[0], b[1]})
	check(EncodeBuzzer(Buzzer{u16(0), u16(2), u16(4), u16(6)}), Buzzer{u16(0), u16(2), u16(4), u16(6)})
	check(EncodeLED(LED{b[0], u16(1), u16(3), u16(5)}), LED{b[0], u16(1), u16(3), u16(5)})
	check(EncodeMotorStopMask(b[0]), MotorCommand{Kind: MotorStopMask, Mask: b[0]})
	id := b[0] & 7
	check(EncodeMotorStopOne(id), MotorCommand{Kind: MotorStopOne, Mask: 1 << id})

	// Motor speeds: either refused with no bytes, or on the wire exactly as float32 and within the limits.
	var rps [4]float64
	for i := range rps {
		rps[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[i*8%24:])) // overlapping reads are fine
	}
	raw, err := EncodeWheelRPS(rps)
	if err != nil {
		if raw != nil || !(errors.Is(err, ErrNonFinite) || errors.Is(err, ErrOutOfRange)) {
			t.Fatalf("EncodeWheelRPS(%v) = % X, %v", rps, raw, err)
		}
	} else {
		want := MotorCommand{Kind: MotorSetMany}
		for i, r := range rps {
			if math.Abs(r) > MaxRPS || math.IsNaN(r) {
				t.Fatalf("EncodeWheelRPS accepted %v", rps)
			}
			want.Speeds = append(want.Speeds, MotorSpeed{uint8(i), float32(r)})
		}
		check(raw, want)
	}
	one := f32(b[1:])
	raw, err = EncodeMotorSingle(b[0]%5, one)
	if err == nil {
		check(raw, MotorCommand{Kind: MotorSetOne, Speeds: []MotorSpeed{{b[0] % 5, one}}})
	} else if raw != nil {
		t.Fatalf("EncodeMotorSingle error %v with bytes", err)
	}
}
