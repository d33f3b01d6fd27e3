package target

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/imu"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
	"golang.org/x/sys/unix"
)

// imuFrames writes n IMU frames (gyro x = i deg/s) with garbage and a battery frame between them.
func imuFrames(n int) []byte {
	var b []byte
	for i := range n {
		b = append(b, board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}, Gyro: [3]float32{float32(i), -1.6, 0.05}})...)
		b = append(b, 0x00, 0xAA, 0x13) // junk and a false header: the parser resyncs
		b = append(b, board.EncodeBattery(board.Battery{MilliVolts: 12000})...)
	}
	return b
}

func waitSamples(t *testing.T, r *imu.Recorder, n int) []imu.Sample {
	t.Helper()
	var s []imu.Sample
	if err := testkit.Eventually(5*time.Second, func() error {
		if s = r.Samples(); len(s) < n {
			return fmt.Errorf("%d samples, want %d", len(s), n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBoardIMUReadsTheRawSocket(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "base.sock.raw")
	ln, err := net.Listen("unix", raw)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := imuFrames(50)
		for i := 0; i < len(b); i += 7 { // odd chunks: frames split across reads
			c.Write(b[i:min(i+7, len(b))])
		}
		time.Sleep(time.Second)
	}()
	r := imu.StartRecorder(context.Background(), BoardIMU{RawSocket: raw, Device: filepath.Join(dir, "none"), Clock: clock.Real{}}.Stream)
	defer r.Close()
	s := waitSamples(t, r, 50)
	for i, x := range s[:50] {
		if x.Source != imu.SourceRaw || x.Where != raw || math.Abs(x.Gyro[0]-float64(i)*math.Pi/180) > 1e-6 ||
			math.Abs(x.Gyro[1]+1.6*math.Pi/180) > 1e-6 {
			t.Fatalf("sample %d: %+v (want gyro in rad/s from the raw stream)", i, x)
		}
	}
}

// The port read directly: refused while another process holds its advisory lock (as the supervisor does),
// read once it is free, and given back within ~0.1 s once someone locks it again (a returning driver).
func TestBoardIMUReadsThePortOnlyWhileNobodyHoldsIt(t *testing.T) {
	b := boardtest.OpenPTY(t, boardtest.Options{})
	dev := b.SlaveName()
	holder, err := os.OpenFile(dev, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := unix.Flock(int(holder.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if _, err := openPortReadOnly(dev); err == nil {
		t.Fatal("opened a port whose lock is held")
	}

	r := imu.StartRecorder(context.Background(), BoardIMU{Device: dev, Clock: clock.Real{}}.Stream)
	defer r.Close()
	defer writeEvery(b, func() []byte { return imuFrames(1) })()
	time.Sleep(300 * time.Millisecond)
	// The holder reads too, so nothing is left for a second reader; more to the point, none may be there.
	if n := len(r.Samples()); n != 0 {
		t.Fatalf("%d samples read while the port was held", n)
	}
	unix.Flock(int(holder.Fd()), unix.LOCK_UN)
	holder.Close()
	s := waitSamples(t, r, 10)
	if s[0].Source != imu.SourceDirect || s[0].Where != dev {
		t.Fatalf("sample %+v, want read directly from %s", s[0], dev)
	}
	// A returning owner takes the lock: the direct reader lets go.
	again, err := os.OpenFile(dev, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := unix.Flock(int(again.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	n1 := len(r.Samples())
	time.Sleep(400 * time.Millisecond)
	if n2 := len(r.Samples()); n2 != n1 {
		t.Errorf("still reading the port after its owner came back: %d -> %d samples", n1, n2)
	}
}

func TestRecorderCloseIsIdempotentAndEndsTheStream(t *testing.T) {
	ended := make(chan struct{})
	r := imu.StartRecorder(context.Background(), func(ctx context.Context, emit func(imu.Sample)) error {
		defer close(ended)
		emit(imu.Sample{})
		<-ctx.Done()
		return ctx.Err()
	})
	waitSamples(t, r, 1)
	r.Close()
	r.Close()
	select {
	case <-ended:
	default:
		t.Fatal("stream still running after Close")
	}
	if r.Err() != nil {
		t.Errorf("Err after Close: %v", r.Err())
	}
	// A stream that ends by itself reports why.
	r2 := imu.StartRecorder(context.Background(), func(ctx context.Context, emit func(imu.Sample)) error { return os.ErrClosed })
	<-r2.Done()
	if r2.Err() != os.ErrClosed {
		t.Errorf("Err %v", r2.Err())
	}
}

// Frames that sat in the tty's input queue before the proof opened the port (the seconds after the driver
// died, nobody reading) must not be read: every sample is stamped on receipt, so they would land at the
// moment of the open as a burst of old vibration. serialport flushes the input on open.
func TestBoardIMUDropsFramesQueuedBeforeTheOpen(t *testing.T) {
	// Raw (boardtest's pty is), so the line discipline queues the bytes as they are instead of holding a line or
	// echoing; the board's own open of the slave came first, so nothing but the reader's open can drop them.
	b := boardtest.OpenPTY(t, boardtest.Options{})
	const stale = 99.0 // deg/s: the old frames' gyro x
	var old []byte
	for range 20 {
		old = append(old, board.EncodeIMU(board.IMU{Gyro: [3]float32{stale, 0, 0}})...)
	}
	if err := b.Emit(old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the pty moves the bytes to the slave's queue asynchronously

	r := imu.StartRecorder(context.Background(), BoardIMU{Device: b.SlaveName(), Clock: clock.Real{}}.Stream)
	defer r.Close()
	defer writeEvery(b, func() []byte { return board.EncodeIMU(board.IMU{Gyro: [3]float32{1, 0, 0}}) })()
	for _, s := range waitSamples(t, r, 10) {
		if math.Abs(s.Gyro[0]-stale*math.Pi/180) < 1e-6 {
			t.Fatalf("read a frame queued before the open: %+v", s)
		}
	}
}

// writeEvery has the board emit frame() every 10 ms, its IMU stream in miniature, until the returned stop is
// called; stop waits for the writer to end.
func writeEvery(b *boardtest.Board, frame func() []byte) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-time.After(10 * time.Millisecond):
				b.Emit(frame())
			}
		}
	}()
	return func() { close(quit); <-done }
}
