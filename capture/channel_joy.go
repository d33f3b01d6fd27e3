package capture

import (
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TopicJoy is the board's gamepad frames, sensor_msgs/msg/Joy.
const TopicJoy = "/joy"

var _ = RegisterChannel(DecodedChannel{Topic: TopicJoy, Kind: Board, Dir: FromDevice, Rank: 3, NewConvert: func() Convert {
	return func(t time.Time, recs []Record, emit func(rosmsg.Message)) {
		for _, r := range recs {
			if v, ok := valueOf[board.Gamepad](r); ok {
				emit(JoyMessage(t, v))
			}
		}
	}
}}, (*rosmsg.Joy)(nil))

// JoyMessage converts a gamepad frame to sensor_msgs/msg/Joy: axes LX, LY, RX, RY (-1..1, raw/127, as
// board.Gamepad.Axes); buttons are the 16 bits of the button word, bit 0 first, then the hat's raw code.
func JoyMessage(t time.Time, g board.Gamepad) *rosmsg.Joy {
	ax := g.Axes()
	m := &rosmsg.Joy{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "joy"},
		Axes: []float32{float32(ax[0]), float32(ax[1]), float32(ax[2]), float32(ax[3])}, Buttons: make([]int32, 17)}
	for i := 0; i < 16; i++ {
		m.Buttons[i] = int32(g.Buttons >> i & 1)
	}
	m.Buttons[16] = int32(g.Hat)
	return m
}
