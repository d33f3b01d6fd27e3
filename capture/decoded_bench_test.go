package capture

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/board"
)

// benchDecoded feeds stream in 64-byte reads through Decoded into a real recording (temp dir, flusher
// running): the cost of the decoded channels next to the raw ones.
func benchDecoded(b *testing.B, kind Kind, dir Direction, stream []byte) {
	rec, err := mcapfile.Create(filepath.Join(b.TempDir(), "b.mcap"), mcapfile.Options{NoFinish: true})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	d, err := NewDecoded(rec, kind, dir)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for off := 0; off < len(stream); off += 64 {
			if err := d.Feed(t0, stream[off:min(len(stream), off+64)]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(d.Written)/float64(b.N), "msgs/op")
}

func BenchmarkDecodedBoardRx(b *testing.B) {
	var s []byte
	for len(s) < 64<<10 {
		s = append(s, board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}})...)
	}
	benchDecoded(b, Board, FromDevice, s)
}

func BenchmarkDecodedBoardTx(b *testing.B) {
	f, _ := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	var s []byte
	for len(s) < 64<<10 {
		s = append(s, f...)
	}
	benchDecoded(b, Board, ToDevice, s)
}

func BenchmarkDecodedLidar(b *testing.B) {
	benchDecoded(b, Lidar, FromDevice, lidarRevolutions(b, 20, 1500))
}
