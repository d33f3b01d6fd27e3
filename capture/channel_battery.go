package capture

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TopicBattery is the board's battery reports, sensor_msgs/msg/BatteryState.
const TopicBattery = "/battery"

var _ = RegisterChannel(DecodedChannel{Topic: TopicBattery, Kind: Board, Dir: FromDevice, Rank: 2, NewConvert: func() Convert {
	return func(t time.Time, recs []Record, emit func(rosmsg.Message)) {
		for _, r := range recs {
			if v, ok := valueOf[board.Battery](r); ok {
				emit(BatteryMessage(t, v))
			}
		}
	}
}}, (*rosmsg.BatteryState)(nil))

// BatteryMessage converts a board battery report to sensor_msgs/msg/BatteryState: voltage only, the rest
// NaN (unmeasured, as the message's comments ask), technology unknown.
func BatteryMessage(t time.Time, v board.Battery) *rosmsg.BatteryState {
	nan := float32(math.NaN())
	return &rosmsg.BatteryState{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "base_link"},
		Voltage: float32(v.Volts()), Temperature: nan, Current: nan, Charge: nan, Capacity: nan,
		DesignCapacity: nan, Percentage: nan, Present: true}
}
