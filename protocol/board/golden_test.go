package board

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden holds every worked frame of reference/board-protocol.md: encoder output and the decoded value.
var golden = []struct {
	name   string
	encode func() ([]byte, error)
	value  any
	raw    string
}{
	{"stop all four motors", func() ([]byte, error) { return StopFrame(), nil },
		MotorCommand{Kind: MotorSetMany, Speeds: []MotorSpeed{{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
		"AA 55 03 16 01 04 00 00000000 01 00000000 02 00000000 03 00000000 07"},
	{"motors 0 and 1 at +0.5 and -0.5 rps", func() ([]byte, error) { return EncodeMotorSpeeds(MotorSpeed{0, 0.5}, MotorSpeed{1, -0.5}) },
		MotorCommand{Kind: MotorSetMany, Speeds: []MotorSpeed{{0, 0.5}, {1, -0.5}}},
		"AA 55 03 0C 01 02 00 0000003F 01 000000BF 33"},
	{"one motor (id 1) at -1 rps", func() ([]byte, error) { return EncodeMotorSingle(1, -1) },
		MotorCommand{Kind: MotorSetOne, Speeds: []MotorSpeed{{1, -1}}},
		"AA 55 03 06 00 01 000080BF DA"},
	{"stop by mask 0x0F", func() ([]byte, error) { return EncodeMotorStopMask(0x0F), nil },
		MotorCommand{Kind: MotorStopMask, Mask: 0x0F},
		"AA 55 03 02 03 0F D3"},
	{"buzzer 1400 Hz 100/100 ms x5", func() ([]byte, error) { return EncodeBuzzer(Buzzer{1400, 100, 100, 5}), nil },
		Buzzer{1400, 100, 100, 5},
		"AA 55 02 08 7805 6400 6400 0500 F0"},
	{"LED 1 100/100 ms x5", func() ([]byte, error) { return EncodeLED(LED{1, 100, 100, 5}), nil },
		LED{1, 100, 100, 5},
		"AA 55 01 07 01 6400 6400 0500 37"},
	{"battery report 7400 mV", func() ([]byte, error) { return EncodeBattery(Battery{7400}), nil },
		Battery{7400},
		"AA 55 00 03 04 E8 1C 2B"},
}

func TestCRC8CheckValue(t *testing.T) {
	if got := CRC8([]byte("123456789")); got != 0xA1 {
		t.Fatalf("CRC-8/MAXIM(123456789) = %#02x, want 0xa1", got)
	}
}

func TestGoldenFrames(t *testing.T) {
	for _, g := range golden {
		t.Run(g.name, func(t *testing.T) {
			want := unhex(t, g.raw)
			got, err := g.encode()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got % X\nwant % X", got, want)
			}
			var frames []Frame
			var p Parser
			p.Feed(want, func(f Frame) { frames = append(frames, Frame{f.Func, bytes.Clone(f.Payload)}) })
			if len(frames) != 1 {
				t.Fatalf("parser found %d frames, want 1 (stats %+v)", len(frames), p.Stats())
			}
			v, err := Decode(frames[0])
			if err != nil {
				t.Fatal(err)
			}
			if !equalValue(v, g.value) {
				t.Fatalf("decode: got %#v, want %#v", v, g.value)
			}
		})
	}
}

func equalValue(a, b any) bool {
	am, aok := a.(MotorCommand)
	bm, bok := b.(MotorCommand)
	if aok && bok {
		if am.Kind != bm.Kind || am.Mask != bm.Mask || len(am.Speeds) != len(bm.Speeds) {
			return false
		}
		for i := range am.Speeds {
			if am.Speeds[i] != bm.Speeds[i] {
				return false
			}
		}
		return true
	}
	return a == b
}
