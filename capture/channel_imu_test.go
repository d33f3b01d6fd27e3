package capture

import (
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// sliceSink keeps what a Decoded writes.
type sliceSink struct {
	topics []string
	logs   []time.Time
	msgs   []rosmsg.Message
}

func (s *sliceSink) WriteMessage(topic string, t time.Time, m rosmsg.Message) error {
	s.topics, s.logs, s.msgs = append(s.topics, topic), append(s.logs, t), append(s.msgs, m)
	return nil
}

// only is what s kept on topic.
func (s *sliceSink) only(topic string) sliceSink {
	var o sliceSink
	for i, tp := range s.topics {
		if tp == topic {
			o.topics, o.logs, o.msgs = append(o.topics, tp), append(o.logs, s.logs[i]), append(o.msgs, s.msgs[i])
		}
	}
	return o
}

func stampOf(m rosmsg.Message) time.Time {
	h := m.(*rosmsg.Imu).Header.Stamp
	return time.Unix(int64(h.Sec), int64(h.Nanosec))
}

// A read that holds three IMU frames gives three /imu messages with distinct, increasing stamps, the last
// the read's time (board.IMUStamper); the log time stays the read's. Stamping them all with the read's time
// repeated a stamp (dt = 0 for a filter downstream).
func TestIMUStampsOfOneReadIncrease(t *testing.T) {
	var sink sliceSink
	d, err := NewDecodedTo(&sink, Board, FromDevice)
	if err != nil {
		t.Fatal(err)
	}
	var read []byte
	for i := range 3 {
		read = append(read, board.EncodeIMU(board.IMU{Gyro: [3]float32{0, 0, float32(i)}})...)
	}
	t0 := time.Unix(1_700_000_000, 0)
	if err := d.Feed(t0, read); err != nil {
		t.Fatal(err)
	}
	// The next read 2 ms later holds two more: spread over the gap, still after the last stamp.
	if err := d.Feed(t0.Add(2*time.Millisecond), read[:2*len(read)/3]); err != nil {
		t.Fatal(err)
	}
	imu := sink.only(TopicIMU) // the other channels of the stream decode the same frames too
	if len(imu.msgs) != 5 {
		t.Fatalf("%d /imu messages, want 5", len(imu.msgs))
	}
	for i, m := range imu.msgs {
		if st := stampOf(m); i > 0 && !st.After(stampOf(imu.msgs[i-1])) {
			t.Fatalf("stamp %d %v is not after %v", i, st, stampOf(imu.msgs[i-1]))
		}
	}
	if got := stampOf(imu.msgs[2]); !got.Equal(t0) || !imu.logs[0].Equal(t0) {
		t.Fatalf("last stamp of the first read %v, log time %v; want the read's time %v", got, imu.logs[0], t0)
	}
	if got := stampOf(imu.msgs[0]); !got.Equal(t0.Add(-2 * board.IMUPeriod)) {
		t.Fatalf("first stamp %v, want two IMU periods before the read %v", got, t0.Add(-2*board.IMUPeriod))
	}
}
