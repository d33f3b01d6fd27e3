package rosmsg

import (
	"testing"

	"github.com/rosorin/rosorin/protocol/cdr"
)

// The driver publishes ~110 IMU messages a second and ~10 scans of 400 bins.

func BenchmarkImuEncode(b *testing.B) {
	m := &Imu{Header: Header{Time{1, 2}, "imu_link"}, Orientation: Quaternion{W: 1}}
	w := cdr.NewWriter(make([]byte, 0, 512))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		m.MarshalCDR(w)
	}
	b.SetBytes(int64(len(w.Bytes())))
}

func BenchmarkImuDecode(b *testing.B) {
	raw := cdr.Marshal(&Imu{Header: Header{Time{1, 2}, "imu_link"}, Orientation: Quaternion{W: 1}})
	var m Imu
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := cdr.Unmarshal(raw, &m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLaserScan400Encode(b *testing.B) {
	m := &LaserScan{Header: Header{FrameID: "laser"}, Ranges: make([]float32, 400), Intensities: make([]float32, 400)}
	w := cdr.NewWriter(make([]byte, 0, 4096))
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		m.MarshalCDR(w)
	}
	b.SetBytes(int64(len(w.Bytes())))
}
