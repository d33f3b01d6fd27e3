package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Battery model (chapter 11): a 3S pack around 12.4 V on battery; the charger plug/unplug is a step of
// +249 / -226 mV; motor load moves the reading by about 170 mV at full drive.
const (
	BatteryStartMV   = 12400
	BatterySagPerRPS = 120.0 // mV per mean |rps|: 1.39 rps (0.35 m/s) sags ~167 mV
	BatteryDrainPerS = 0.05  // mV/s: slow discharge, visible only over minutes
	BatteryNoiseMV   = 3.0
)

// BatteryModel produces the board's battery reports. Deterministic for a seed; no clock.
type BatteryModel struct {
	rng  *rand.Rand
	base float64 // mV without load
}

func NewBatteryModel(seed int64) *BatteryModel {
	return &BatteryModel{rng: rand.New(rand.NewPCG(uint64(seed), 0xba7)), base: BatteryStartMV}
}

// Step adds a charger step (mV, e.g. +250 plugged in, -250 unplugged).
func (b *BatteryModel) Step(mv int) { b.base += float64(mv) }

// Sample returns the reading after dt of discharge with the wheels at meanAbsRPS.
func (b *BatteryModel) Sample(dt time.Duration, meanAbsRPS float64) uint16 {
	b.base -= BatteryDrainPerS * dt.Seconds()
	v := b.base - BatterySagPerRPS*meanAbsRPS + BatteryNoiseMV*b.rng.NormFloat64()
	return uint16(math.Max(0, math.Min(65535, math.Round(v))))
}
