package capture

import (
	"math"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// TopicIMU is the board's IMU frames, sensor_msgs/msg/Imu. Header stamps follow board.IMUStamper: the frames
// of one read are stamped back from the read's time by the IMU period, strictly increasing.
const TopicIMU = "/imu"

var _ = RegisterChannel(DecodedChannel{Topic: TopicIMU, Kind: Board, Dir: FromDevice, Rank: 1, NewConvert: func() Convert {
	var st board.IMUStamper
	var stamps []time.Time
	return func(t time.Time, recs []Record, emit func(rosmsg.Message)) {
		n := 0
		for _, r := range recs {
			if _, ok := valueOf[board.IMU](r); ok {
				n++
			}
		}
		stamps = st.Stamps(stamps[:0], t, n)
		i := 0
		for _, r := range recs {
			if v, ok := valueOf[board.IMU](r); ok {
				emit(IMUMessage(stamps[i], v))
				i++
			}
		}
	}
}}, (*rosmsg.Imu)(nil))

// valueOf is the decoded value of a board record if it is a V.
func valueOf[V any](r Record) (V, bool) {
	br, ok := r.(*BoardRecord)
	if !ok {
		var zero V
		return zero, false
	}
	v, ok := br.Value.(V)
	return v, ok
}

// IMUMessage converts a board IMU frame (g, deg/s) to sensor_msgs/msg/Imu (m/s², rad/s), orientation unknown.
func IMUMessage(t time.Time, v board.IMU) *rosmsg.Imu {
	d := math.Pi / 180
	return rosmsg.ImuOf(rosmsg.IMUReading{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "imu_link",
		Accel: [3]float64{float64(v.Accel[0]) * board.StandardGravity, float64(v.Accel[1]) * board.StandardGravity,
			float64(v.Accel[2]) * board.StandardGravity},
		Gyro: [3]float64{float64(v.Gyro[0]) * d, float64(v.Gyro[1]) * d, float64(v.Gyro[2]) * d}})
}
