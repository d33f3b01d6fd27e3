package driver

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/protocol/board"
)

// reads hands out one prepared chunk per Read, advancing the clock by the chunk's gap first.
type reads struct {
	clk    *fakeClock
	chunks [][]byte
	gaps   []time.Duration
}

func (r *reads) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	r.clk.advance(r.gaps[0])
	n := copy(p, r.chunks[0])
	r.chunks, r.gaps = r.chunks[1:], r.gaps[1:]
	return n, nil
}

// imuTap is a transport that keeps the published IMU messages.
type imuTap struct {
	mu   sync.Mutex
	imus []api.IMU
}

func (t *imuTap) Publish(topic string, msg any) {
	if m, ok := msg.(*api.IMU); ok && topic == api.TopicIMU {
		t.mu.Lock()
		t.imus = append(t.imus, *m)
		t.mu.Unlock()
	}
}
func (t *imuTap) Stats() api.TransportStats { return api.TransportStats{} }
func (t *imuTap) Close() error              { return nil }

// A read that holds three IMU frames publishes three api.IMU (the ROS 2 bridge's /imu) with distinct,
// increasing stamps (board.IMUStamper); they all had the read's time, so a filter saw dt = 0.
func TestIMUStampsOfOneReadIncrease(t *testing.T) {
	clk := newFakeClock()
	imu := board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}})
	in := &reads{clk: clk}
	// 4 s of single frames (the 3 s gyro calibration publishes nothing), then one read of three frames.
	for range 440 {
		in.chunks, in.gaps = append(in.chunks, imu), append(in.gaps, board.IMUPeriod)
	}
	in.chunks, in.gaps = append(in.chunks, bytes.Repeat(imu, 3)), append(in.gaps, 3*board.IMUPeriod)
	out := make(chan boardBatch, len(in.chunks))
	readBoard(context.Background(), in, clk, out, make(chan error, 1))
	close(out)

	o := Options{Config: config.Default(), Log: quietLog(), Clock: clk}.withDefaults()
	p, err := paramsFrom(o.Config)
	if err != nil {
		t.Fatal(err)
	}
	r := newLoopState(o, p)
	tap := &imuTap{}
	r.tr = tap
	var last boardBatch
	for b := range out {
		r.onBoard(b)
		last = b
	}
	if len(last.imuAt) != 3 {
		t.Fatalf("the last read's batch has %d IMU stamps, want 3", len(last.imuAt))
	}
	if len(tap.imus) < 10 {
		t.Fatalf("%d IMU messages published after the calibration", len(tap.imus))
	}
	for i := 1; i < len(tap.imus); i++ {
		if !tap.imus[i].Stamp.After(tap.imus[i-1].Stamp) {
			t.Fatalf("IMU %d stamp %v is not after %v", i, tap.imus[i].Stamp, tap.imus[i-1].Stamp)
		}
	}
	n := len(tap.imus)
	if d := tap.imus[n-1].Stamp.Sub(tap.imus[n-3].Stamp); d != 2*board.IMUPeriod {
		t.Fatalf("the three frames of one read span %v, want two IMU periods", d)
	}
}
