package main

import (
	"bytes"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// The sample captures in testdata/captures are SYNTHETIC: built here from the protocol encoders, not recorded
// on the robot. Regenerate them (and their expected summaries) with
//
//	go test ./cmd/capture -run TestSampleCaptures -update
//
// The generators use integer arithmetic wherever a value reaches the wire bytes, so they give the same
// bytes on every platform (a float expression may be fused into an FMA on arm64 and differ in its last bit);
// the test fails if the committed files and the generators disagree.

var update = flag.Bool("update", false, "rewrite testdata/captures from the generators")

const capturesDir = "../../testdata/captures"

type sample struct {
	name      string
	kind      string
	gen       func(t testing.TB) ([]byte, truth)
	summaryOf string
}

// truth is what the generator knows about its capture.
type truth struct {
	records int // valid frames or packets in it
	pending int // bytes of the frame cut off at the end
	corrupt int // frames or packets with a flipped bit (a bad checksum each)
}

var samples = []sample{
	{name: "board-synthetic.bin", kind: "board", gen: boardSample},
	{name: "lidar-synthetic.bin", kind: "lidar", gen: lidarSample},
}

type event struct {
	atUS int // microseconds from the start
	raw  []byte
}

// boardSample is one second of board traffic, both directions interleaved as a tap on the serial line would
// record them (a capture of the real port's read side holds only IMU, battery, gamepad and key frames):
// IMU at 110 Hz, one battery report, gamepad at 20 Hz, the driver's wheel-speed refresh at 5 Hz, one key
// click. The capture starts 11 bytes into an IMU frame, one IMU frame has a flipped bit, and the last frame
// is cut after 10 bytes.
func boardSample(t testing.TB) ([]byte, truth) {
	rng := rand.New(rand.NewPCG(2026, 9))
	milli := func(v int) float32 { return float32(v) / 1000 } // exact on every platform
	var ev []event
	for i := range 111 {
		// The robot at rest turning slowly: gyro z follows an integer triangle wave, in 0.01 deg/s.
		tri := i % 40
		if tri > 20 {
			tri = 40 - tri
		}
		m := board.IMU{
			Accel: [3]float32{milli(rng.IntN(11) - 5), milli(rng.IntN(11) - 5), milli(1000 + rng.IntN(9) - 4)},
			Gyro:  [3]float32{milli(10 * (rng.IntN(7) - 3)), milli(10 * (rng.IntN(7) - 3)), float32(50*tri-500) / 100},
		}
		ev = append(ev, event{i * 1000000 / 110, board.EncodeIMU(m)})
	}
	ev = append(ev, event{503000, board.EncodeBattery(board.Battery{MilliVolts: 7412})})
	for i := range 20 {
		g := board.Gamepad{Hat: 8, LY: int8(5 * i), RX: int8(-3 * i)}
		if i >= 10 && i < 14 {
			g.Buttons = board.BtnL1
		}
		ev = append(ev, event{7000 + i*50000, board.EncodeGamepad(g)})
	}
	for i := range 5 {
		v := float64(i) / 10 // 0.0 .. 0.4 rps: one correctly rounded division, the same everywhere
		f, err := board.EncodeWheelRPS([4]float64{v, -v, v, -v})
		if err != nil {
			t.Fatal(err)
		}
		ev = append(ev, event{11000 + i*200000, f})
	}
	ev = append(ev, event{650000, board.EncodeKey(board.Key{ID: 1, Event: board.KeyClick})})
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].atUS < ev[j].atUS })

	var data []byte
	tr := truth{}
	data = append(data, ev[0].raw[11:]...)
	for i, e := range ev[1 : len(ev)-1] {
		raw := e.raw
		if i == 70 && raw[2] == board.FuncIMU {
			raw = bytes.Clone(raw)
			raw[9] ^= 0x04
			tr.corrupt++
		} else {
			tr.records++
		}
		data = append(data, raw...)
	}
	last := ev[len(ev)-1].raw[:10]
	data = append(data, last...)
	tr.pending = len(last)
	if tr.corrupt != 1 {
		t.Fatal("the corrupted frame is not an IMU frame; the generator changed")
	}
	return data, tr
}

// lidarSample is three revolutions of COIN-D6 output in a 4 m x 3 m room: 10 Hz, a revolution-start packet
// (CT 0xC9, one sample) then 16 packets of 25, angles in integer 1/64 degree steps starting at 358.953125 and
// wrapping past 360, no return (0) in the rear blind sector, 51..88 mm self-returns at native 33..57
// degrees, one sample per turn forced to the bytes AA 55. The capture starts 30 bytes into a packet (as the
// chapter 14 capture did), one packet has a flipped bit, and the last packet is cut after 40 bytes.
func lidarSample(t testing.TB) ([]byte, truth) {
	rng := rand.New(rand.NewPCG(2026, 10))
	const samplesPerRev, full = 401, 360 * 64
	a0 := 22973 // 358.953125 degrees in 1/64 degree
	unit := func(j int) int { return (a0*samplesPerRev + j*full) / samplesPerRev % full }
	sampleAt := func(j, rev int) coind6.Sample {
		u := unit(j)
		deg := float64(u) / 64
		var mm int
		switch {
		case deg >= 140 && deg <= 205:
			mm = 0
		case deg >= 33 && deg <= 57:
			mm = 51 + rng.IntN(38)
		default:
			mm = int(math.Round(roomMM(deg))) + rng.IntN(13) - 6 // rounded to mm: platform-independent
		}
		s := coind6.Sample{DistMM: uint16(mm), Intensity: uint8(max(20, 230-mm/30))}
		if mm == 0 {
			s.Intensity = 0
		}
		if j == 100+rev && mm > 64 {
			s.Intensity, s.Flags, s.DistMM = 0xAA, 1, uint16(mm&^63|21) // S0 S1 = AA 55
		}
		return s
	}
	raw := func(u int) uint16 { return uint16(u)<<1 | 1 }
	var pkts [][]byte
	for rev := range 4 {
		ring := coind6.Packet{CT: 0xC9, FSA: raw(unit(0)), LSA: raw(unit(0)), Samples: []coind6.Sample{sampleAt(0, rev)}}
		pkts = append(pkts, mustEncode(t, ring))
		for m := range 16 {
			p := coind6.Packet{FSA: raw(unit(1 + 25*m)), LSA: raw(unit(25 + 25*m))}
			for k := range 25 {
				p.Samples = append(p.Samples, sampleAt(1+25*m+k, rev))
			}
			pkts = append(pkts, mustEncode(t, p))
		}
	}
	var data []byte
	tr := truth{}
	data = append(data, pkts[3][30:]...)
	for i, p := range pkts[4 : 3*17+1] { // through revolution 3's ring start
		if i == 25 {
			p = bytes.Clone(p)
			p[40] ^= 0x10
			tr.corrupt++
		} else {
			tr.records++
		}
		data = append(data, p...)
	}
	cut := pkts[3*17+1][:40]
	data = append(data, cut...)
	tr.pending = len(cut)
	return data, tr
}

func mustEncode(t testing.TB, p coind6.Packet) []byte {
	b, err := coind6.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roomMM is the distance at native angle deg from a point 0.6 m right of and 0.4 m behind the centre of a
// 4 m x 3 m room.
func roomMM(deg float64) float64 {
	a := deg * math.Pi / 180
	dx, dy := math.Cos(a), math.Sin(a)
	t := math.Inf(1)
	if dx > 0 {
		t = min(t, 1.4/dx)
	} else if dx < 0 {
		t = min(t, -2.6/dx)
	}
	if dy > 0 {
		t = min(t, 1.9/dy)
	} else if dy < 0 {
		t = min(t, -1.1/dy)
	}
	return t * 1000
}

func summaryPath(s sample) string {
	return filepath.Join(capturesDir, s.name[:len(s.name)-len(filepath.Ext(s.name))]+".summary.json")
}

// TestSampleCaptures checks that the committed sample captures are what the generators make, decodes them
// with the command, and compares the summary line with the committed one and with the generator's truth.
func TestSampleCaptures(t *testing.T) {
	for _, s := range samples {
		data, tr := s.gen(t)
		path := filepath.Join(capturesDir, s.name)
		stdout, stderr, code := runCmd(t, nil, "decode", "--kind", s.kind, path)
		if *update {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code = runCmd(t, nil, "decode", "--kind", s.kind, path)
			lines := bytes.Split(bytes.TrimSpace(stdout), []byte("\n"))
			if err := os.WriteFile(summaryPath(s), append(lines[len(lines)-1], '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		onDisk, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (generate with: go test ./cmd/capture -run TestSampleCaptures -update)", err)
		}
		if !bytes.Equal(onDisk, data) {
			t.Fatalf("%s differs from its generator; regenerate with -update and review the diff", s.name)
		}
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", s.name, code, stderr)
		}
		recs, sum := parseOutput(t, stdout)
		checkOutputAccounting(t, recs, sum)
		if int(sum.records()) != tr.records || int(sum.PendingBytes) != tr.pending || int(sum.BadChecksum) < tr.corrupt {
			t.Errorf("%s: summary %+v; the generator put in %d records, %d pending bytes, %d corrupted", s.name, sum, tr.records, tr.pending, tr.corrupt)
		}
		want, err := os.ReadFile(summaryPath(s))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(stdout), []byte("\n"))
		if got := lines[len(lines)-1]; !bytes.Equal(got, bytes.TrimSpace(want)) {
			t.Errorf("%s summary:\n got %s\nwant %s", s.name, got, want)
		}
		if len(data) < 2000 || len(data) > 8000 {
			t.Errorf("%s is %d bytes; keep samples a few KB", s.name, len(data))
		}
	}
}
