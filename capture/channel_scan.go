package capture

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TopicScan is the LiDAR's revolutions through the reader's own assembler (400 bins),
// sensor_msgs/msg/LaserScan stamped with the first ray.
const TopicScan = "/scan"

var _ = RegisterChannel(DecodedChannel{Topic: TopicScan, Kind: Lidar, Dir: FromDevice, Rank: 1, NewConvert: func() Convert {
	asm := coind6.NewAssembler(coind6.DefaultScanConfig())
	var clk coind6.PacketClock // as the driver's reader stamps the packets of one read
	return func(t time.Time, recs []Record, emit func(rosmsg.Message)) {
		for _, r := range recs {
			if lr, ok := r.(*LidarRecord); ok && lr.Err == nil {
				if s, ok := asm.Add(lr.Packet, clk.At(t, lr.Tail)); ok {
					emit(ScanMessage(s, "laser"))
				}
			}
		}
	}
}}, (*rosmsg.LaserScan)(nil))

// ScanMessage converts an assembled revolution to sensor_msgs/msg/LaserScan the way the driver publishes
// it (driver/lidar.ToAPI): angles counter-clockwise from 0 in bins of 360/Bins degrees, stamped with the
// first ray, time_increment = scan_time / bins.
func ScanMessage(s coind6.Scan, frameID string) *rosmsg.LaserScan {
	n := len(s.Ranges)
	inc := 2 * math.Pi / float64(max(n, 1))
	st := s.ScanTime.Seconds()
	return &rosmsg.LaserScan{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(s.Stamp.UnixNano()), FrameID: frameID},
		AngleMin: 0, AngleMax: float32(inc * float64(max(n-1, 0))), AngleIncrement: float32(inc),
		TimeIncrement: float32(st / float64(max(n, 1))), ScanTime: float32(st),
		RangeMin: s.RangeMin, RangeMax: s.RangeMax, Ranges: s.Ranges, Intensities: s.Intensities}
}
