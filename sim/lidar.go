package sim

import (
	"math"
	"math/rand/v2"

	"github.com/rosorin/rosorin/protocol/coind6"
)

// COIN-D6 model (chapter 14). Native angles run clockwise seen from above; the LiDAR is mounted at
// x 0.048 m, z 0.107 m with yaw pi, so the robot's forward is native 180 degrees and left is native 90.
const (
	LidarRevHz         = 10
	LidarPacketsPerRev = 16 // normal packets, plus one revolution-start packet
	LidarSamplesPerPkt = 25
	LidarStepDeg       = 360.0 / (LidarPacketsPerRev * LidarSamplesPerPkt) // 0.9
	LidarRingStartDeg  = 360.0 - LidarStepDeg                              // the start packet's angle (capture: 358.95)
	// LidarRingStartCT: bit 0 marks a revolution start; bits 7..1 carry the scan rate in 0.1 Hz (0xC9 in
	// the capture = 100 -> 10.0 Hz).
	LidarRingStartCT = 0xC9
	LidarMountX      = 0.048
	LidarMountZ      = 0.107
	LidarMountYaw    = math.Pi
	LidarNoiseMM     = 6.0  // median per-degree spread over 28 revolutions of a static scene
	LidarMaxMM       = 8000 // longest return seen 7.94 m; beyond: no return
	// LidarDropout: bins that see a wall but return nothing (dark or glossy surfaces). With the 136 degree
	// blind arc this gives ~61 % valid bins in a closed room, the robot's baseline.
	LidarDropout = 0.02
	// A wall hit at a grazing angle (|cos| below this) returns nothing most of the time.
	lidarGrazingCos = 0.12
)

// Native-angle sectors (degrees, clockwise) where the robot's own body is in the way (chapter 14 health
// table): self-returns at 33-57 deg (51-88 mm) and 291-316 deg (50-106 mm) below range_min, and no return
// at all in 316..33 (the blind rear) and 57..67 (the arm tower's shadow). 136 degrees in all, 133 +- a bin.
type lidarSector struct {
	from, to     float64 // native degrees, from <= a < to
	minMM, maxMM float64 // self-return range; 0 = no return
}

var lidarBody = []lidarSector{
	{0, 33, 0, 0},
	{33, 57, 51, 88},
	{57, 67, 0, 0},
	{291, 316, 50, 106},
	{316, 360, 0, 0},
}

// LidarSample is one measurement as the sensor reports it: distance 0 means no return.
type LidarSample struct {
	Intensity uint8
	DistMM    uint16
}

// LidarModel measures the room from a pose. Deterministic for a seed; no clock.
type LidarModel struct {
	rng  *rand.Rand
	room *Room
}

func NewLidarModel(seed int64, room *Room) *LidarModel {
	return &LidarModel{rng: rand.New(rand.NewPCG(uint64(seed), 0x11d)), room: room}
}

// NativeToBase converts a native (clockwise) angle in degrees to the robot base frame (rad, CCW,
// 0 = forward).
func NativeToBase(nativeDeg float64) float64 {
	return wrapAngle(-nativeDeg*math.Pi/180 + LidarMountYaw)
}

// Expected is the noise-free range (m) the room predicts for a native angle from a robot pose, and
// whether the bin can see the room at all (false in the body sectors).
func (m *LidarModel) Expected(pose [3]float64, nativeDeg float64) (float64, bool) {
	if s := bodySector(nativeDeg); s != nil {
		return 0, false
	}
	o := lidarOrigin(pose)
	d, _, ok := m.room.Ray(o, pose[2]+NativeToBase(nativeDeg))
	if !ok || d*1000 > LidarMaxMM {
		return 0, false
	}
	return d, true
}

func lidarOrigin(pose [3]float64) [2]float64 {
	c, s := math.Cos(pose[2]), math.Sin(pose[2])
	return [2]float64{pose[0] + LidarMountX*c, pose[1] + LidarMountX*s}
}

func bodySector(nativeDeg float64) *lidarSector {
	a := math.Mod(nativeDeg, 360)
	if a < 0 {
		a += 360
	}
	for i := range lidarBody {
		if a >= lidarBody[i].from && a < lidarBody[i].to {
			return &lidarBody[i]
		}
	}
	return nil
}

// Measure draws one sample at a native angle from a robot pose.
func (m *LidarModel) Measure(pose [3]float64, nativeDeg float64) LidarSample {
	u := m.rng.Float64()
	n := m.rng.NormFloat64()
	if s := bodySector(nativeDeg); s != nil {
		if s.maxMM == 0 {
			return LidarSample{Intensity: uint8(m.rng.IntN(8))}
		}
		d := s.minMM + (s.maxMM-s.minMM)*u
		return LidarSample{Intensity: 180 + uint8(m.rng.IntN(60)), DistMM: uint16(d)}
	}
	o := lidarOrigin(pose)
	d, cosInc, ok := m.room.Ray(o, pose[2]+NativeToBase(nativeDeg))
	mm := d*1000 + LidarNoiseMM*n
	if !ok || mm > LidarMaxMM || u < LidarDropout || (cosInc < lidarGrazingCos && u < 0.8) {
		return LidarSample{Intensity: uint8(m.rng.IntN(8))}
	}
	if mm < 1 {
		mm = 1
	}
	in := 40 + 190*math.Sqrt(cosInc)*(1-d/10)
	return LidarSample{Intensity: uint8(math.Max(10, math.Min(255, in))), DistMM: uint16(math.Round(mm))}
}

// Packet fills dst with packet k of a revolution (0 = the revolution-start packet with its one empty
// sample, 1..16 = 25 samples each) and returns the first and last native angles in degrees.
func (m *LidarModel) Packet(k int, pose [3]float64, dst []LidarSample) (samples []LidarSample, fsa, lsa float64) {
	if k == 0 {
		// The capture's start packet carries one sample with distance 0 and a mid intensity.
		return append(dst[:0], LidarSample{Intensity: 0x40 + uint8(m.rng.IntN(32))}), LidarRingStartDeg, LidarRingStartDeg
	}
	fsa = float64((k-1)*LidarSamplesPerPkt) * LidarStepDeg
	dst = dst[:0]
	for i := 0; i < LidarSamplesPerPkt; i++ {
		dst = append(dst, m.Measure(pose, fsa+float64(i)*LidarStepDeg))
	}
	return dst, fsa, fsa + float64(LidarSamplesPerPkt-1)*LidarStepDeg
}

// PacketWriter encodes a LidarModel's packets as the COIN-D6 sends them (protocol/coind6), reusing its
// buffers: the sim's LiDAR pty and the tests that need a LiDAR's bytes without a sim running.
type PacketWriter struct {
	Model   *LidarModel
	samples []LidarSample
	wire    []coind6.Sample
}

// Append appends packet k of a revolution seen from pose (CT marks the revolution-start packet, k = 0).
func (w *PacketWriter) Append(dst []byte, k int, pose [3]float64) ([]byte, error) {
	samples, fsa, lsa := w.Model.Packet(k, pose, w.samples)
	w.samples = samples
	w.wire = w.wire[:0]
	for _, x := range samples {
		w.wire = append(w.wire, coind6.Sample{Intensity: x.Intensity, DistMM: x.DistMM})
	}
	ct := uint8(0)
	if k == 0 {
		ct = LidarRingStartCT
	}
	return coind6.AppendEncode(dst, coind6.Packet{CT: ct, FSA: coind6.DegToRaw(fsa), LSA: coind6.DegToRaw(lsa), Samples: w.wire})
}
