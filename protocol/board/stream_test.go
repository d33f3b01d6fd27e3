package board

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/internal/streamtest"
)

// This file builds realistic synthetic board streams (every frame made by the package's own encoders) with
// known ground truth, and holds a byte-at-a-time reference model of the frame rules that the streaming Parser
// is checked against.

// Payload values whose bytes contain AA 55 followed by a valid function code and a length that runs past the
// end of the frame: the false headers a resynchronising parser must survive.
var (
	// motorAA55 is a wheel speed whose little-endian float32 bytes are AA 55 07 3F: a false IMU header
	// claiming 63 bytes (0.5287 rps, a normal speed).
	motorAA55 = math.Float32frombits(0x3F0755AA)
	// gyroAA55 is a gyro rate whose bytes are AA 55 0B 3F: a false RGB header claiming 63 bytes.
	gyroAA55 = math.Float32frombits(0x3F0B55AA)
	// padAA55 is a gamepad report whose buttons bytes are AA 55, hat 3 (MOTOR) and LX 40: a false motor
	// header claiming 40 bytes.
	padAA55 = Gamepad{Buttons: 0x55AA, Hat: FuncMotor, LX: 40, LY: -3}
)

// aa55Frames returns intact frames of each kind whose payload contains a false header, and the frame offset
// of that false header.
func aa55Frames(t testing.TB) (frames [][]byte, falseAt []int) {
	t.Helper()
	motor, err := EncodeWheelRPS([4]float64{float64(motorAA55), 0.3, -0.25, 0.25})
	if err != nil {
		t.Fatal(err)
	}
	imu := EncodeIMU(IMU{Accel: [3]float32{0.01, -0.02, 0.99}, Gyro: [3]float32{0.1, -0.2, gyroAA55}})
	pad := EncodeGamepad(padAA55)
	frames = [][]byte{motor, imu, pad}
	for _, f := range frames {
		k := bytes.Index(f[2:], []byte{Header0, Header1})
		if k < 0 {
			t.Fatalf("test frame % X has no AA 55 in its body", f)
		}
		k += 2
		if f[k+2] >= FuncCount {
			t.Fatalf("false header in % X has function %d: it would not reach the checksum path", f, f[k+2])
		}
		if end := k + Overhead + int(f[k+3]); end <= len(f) {
			t.Fatalf("false header in % X ends inside its frame: it would not overlap the next frame", f)
		}
		falseAt = append(falseAt, k)
	}
	return frames, falseAt
}

// synthStream is a byte stream with the frames a correct parser must emit from it.
type synthStream struct {
	data   []byte
	frames []Frame // expected frames, in order, payloads owned
}

func (s *synthStream) add(raw []byte, emitted bool) {
	s.data = append(s.data, raw...)
	if emitted {
		s.frames = append(s.frames, Frame{Func: raw[2], Payload: bytes.Clone(raw[4 : len(raw)-1])})
	}
}

type timedFrame struct {
	at  time.Duration
	raw []byte
}

// synthBoard builds dur of board traffic as a capture of both directions of the port would hold it: IMU
// reports at 110 Hz, a battery report every second, gamepad reports at 20 Hz, a wheel-speed frame every
// 0.2 s (the driver's refresh), a key event now and then. All values move smoothly with small noise from a
// seeded RNG, so the stream is the same on every run.
func synthBoard(t testing.TB, seed uint64, dur time.Duration) []timedFrame {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []timedFrame
	noise := func(s float64) float32 { return float32(rng.NormFloat64() * s) }
	for at := time.Duration(0); at < dur; at += time.Second / 110 {
		s := at.Seconds()
		out = append(out, timedFrame{at, EncodeIMU(IMU{
			Accel: [3]float32{0.02*float32(math.Sin(s)) + noise(0.005), noise(0.005), 1 + noise(0.004)},
			Gyro:  [3]float32{noise(0.3), noise(0.3), 10*float32(math.Sin(2*s)) + noise(0.3)},
		})})
	}
	for at := 3 * time.Millisecond; at < dur; at += time.Second {
		out = append(out, timedFrame{at, EncodeBattery(Battery{MilliVolts: uint16(7600 - 20*at.Seconds())})})
	}
	for at := 7 * time.Millisecond; at < dur; at += time.Second / 20 {
		s := at.Seconds()
		g := Gamepad{Hat: 8, LY: int8(100 * math.Sin(s)), RX: int8(-60 * math.Sin(3*s))}
		if int(s*2)%3 == 0 {
			g.Buttons |= BtnL1
		}
		out = append(out, timedFrame{at, EncodeGamepad(g)})
	}
	for at := 11 * time.Millisecond; at < dur; at += 200 * time.Millisecond {
		v := 1.2 * math.Sin(at.Seconds())
		f, err := EncodeWheelRPS([4]float64{v, -v, v + 0.1, -v - 0.1})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, timedFrame{at, f})
	}
	for at := 500 * time.Millisecond; at < dur; at += 1700 * time.Millisecond {
		out = append(out, timedFrame{at, EncodeKey(Key{ID: 1, Event: KeyClick})})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at < out[j].at })
	return out
}

// cleanBoardStream is dur of synthetic traffic with no faults.
func cleanBoardStream(t testing.TB, dur time.Duration) synthStream {
	t.Helper()
	var s synthStream
	for _, f := range synthBoard(t, 1, dur) {
		s.add(f.raw, true)
	}
	return s
}

// hostileBoardStream is two seconds of traffic with every fault the parser must survive, placed between
// real frames:
//   - the capture starts in the middle of an IMU frame, followed by random garbage, a lone AA, AA 55 with an
//     unknown function code (12 and 255) and AA AA 55 (a header preceded by a stray AA);
//   - frames with AA 55 inside their payload, intact (they must be emitted and cause no bad checksum), and
//     the same frames with the first header byte damaged (the false header inside must be rejected and the
//     real frame behind it emitted);
//   - a frame with a flipped payload bit (counted, never emitted) and one with a flipped CRC byte;
//   - a whole frame with an unknown function code;
//   - a frame cut short at the end of the capture (left pending).
func hostileBoardStream(t testing.TB) synthStream {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	traffic := synthBoard(t, 2, 2*time.Second)
	aa55, _ := aa55Frames(t)
	var s synthStream
	s.add(traffic[0].raw[7:], false) // capture started mid-frame
	garbage := make([]byte, 40)
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	s.add(garbage, false)
	s.add([]byte{0xAA, 0x01, 0xAA, 0x55, 0x0C, 0x00, 0xAA, 0x55, 0xFF, 0x13, 0xAA}, false)
	for i, f := range traffic[1:] {
		s.add(f.raw, true)
		switch i {
		case 20, 40, 60:
			s.add(aa55[(i-20)/20], true)
		case 100, 120, 140:
			damaged := bytes.Clone(aa55[(i-100)/20])
			damaged[0] = 0xA0
			s.add(damaged, false)
		case 150:
			bad := bytes.Clone(f.raw)
			bad[6] ^= 0x10
			s.add(bad, false)
		case 160:
			bad := bytes.Clone(f.raw)
			bad[len(bad)-1] ^= 0xFF
			s.add(bad, false)
		case 170:
			unknown := []byte{0xAA, 0x55, FuncCount, 0x02, 0x01, 0x02}
			s.add(append(unknown, CRC8(unknown[2:])), false)
		}
	}
	s.add(traffic[3].raw[:10], false) // cut short
	return s
}

// refParse is the frame rule of board-protocol.md applied one position at a time to a whole buffer: the
// executable specification the streaming Parser must match. It returns the frames, the counts, and how many
// trailing bytes could still become a frame if more bytes came.
func refParse(data []byte) (frames []Frame, st Stats, pending int) {
	i := 0
	skip := func() { st.SkippedBytes++; i++ }
	for i < len(data) {
		switch {
		case data[i] != Header0:
			skip()
			continue
		case i+1 == len(data):
			return frames, st, len(data) - i
		case data[i+1] != Header1:
			skip()
			continue
		case i+2 == len(data):
			return frames, st, len(data) - i
		case data[i+2] >= FuncCount:
			st.UnknownFunc++
			skip()
			continue
		case i+3 == len(data):
			return frames, st, len(data) - i
		}
		end := i + Overhead + int(data[i+3])
		if end > len(data) {
			return frames, st, len(data) - i
		}
		if CRC8(data[i+2:end-1]) != data[end-1] {
			st.BadChecksum++
			skip()
			continue
		}
		st.Frames++
		frames = append(frames, Frame{Func: data[i+2], Payload: data[i+4 : end-1]})
		i = end
	}
	return frames, st, 0
}

// collector gathers a Parser's output and checks each frame against the input as it is emitted.
type collector struct {
	frames     []Frame
	frameBytes uint64
}

func (c *collector) emit(f Frame) {
	c.frames = append(c.frames, Frame{Func: f.Func, Payload: bytes.Clone(f.Payload)})
	c.frameBytes += uint64(len(f.Payload) + Overhead)
}

// result is everything observable about one parse of a stream.
type result = streamtest.Result[Frame, Stats]

// feedChunks feeds data in chunks of the sizes next returns (0 included) and returns the result.
func feedChunks(data []byte, next func() int) result {
	var p Parser
	var c collector
	streamtest.Chunks(data, next, func(b []byte) { p.Feed(b, c.emit) })
	return result{Items: c.frames, Stats: p.Stats(), Pending: p.Pending()}
}

func whole(data []byte) result {
	return feedChunks(data, func() int { return len(data) })
}

func sameFrames(a, b []Frame) bool { return firstDiff(a, b) == "" }

// firstDiff describes where two frame lists part, for failure messages ("" when they do not).
func firstDiff(got, want []Frame) string {
	for i := range min(len(got), len(want)) {
		if got[i].Func != want[i].Func || !bytes.Equal(got[i].Payload, want[i].Payload) {
			return fmt.Sprintf("frame %d: got %s % x, want %s % x", i,
				FuncName(got[i].Func), got[i].Payload, FuncName(want[i].Func), want[i].Payload)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("got %d frames, want %d", len(got), len(want))
	}
	return ""
}
