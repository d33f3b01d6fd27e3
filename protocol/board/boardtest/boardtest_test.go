package boardtest_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// failures is a testing.TB that records Errorf instead of failing: the tests below check that Playback fails
// the test, and how.
type failures struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (f *failures) Helper() {}
func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *failures) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.msgs...)
}

var (
	battery = board.EncodeBattery(board.Battery{MilliVolts: 10800})
	imu     = board.EncodeIMU(board.IMU{})
)

func readN(t *testing.T, r io.Reader, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	return b
}

// TestConversation: a board that talks first, a stop frame answered by a battery report, written in odd
// pieces; the whole script played, Close is content.
func TestConversation(t *testing.T) {
	f := &failures{TB: t}
	stop := board.StopFrame()
	p := &boardtest.Playback{T: f, Ops: []boardtest.Op{{R: imu}, {W: stop, R: battery}, {W: boardtest.Frames(stop, stop)}}}
	if got := readN(t, p, len(imu)); !bytes.Equal(got, imu) {
		t.Fatalf("first read % x, want the IMU frame % x", got, imu)
	}
	// The battery answer is not readable before its op's write is complete.
	p.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if n, err := p.Read(make([]byte, 64)); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read before the write: %d bytes, %v; want the deadline", n, err)
	}
	p.SetReadDeadline(time.Time{})
	for _, piece := range [][]byte{stop[:1], stop[1:4], stop[4:]} {
		if n, err := p.Write(piece); n != len(piece) || err != nil {
			t.Fatalf("write % x: %d, %v", piece, n, err)
		}
	}
	if got := readN(t, p, len(battery)); !bytes.Equal(got, battery) {
		t.Fatalf("answer % x, want the battery frame % x", got, battery)
	}
	if _, err := p.Write(boardtest.Frames(stop, stop)); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if m := f.all(); len(m) != 0 {
		t.Fatalf("failures on a played script: %q", m)
	}
	if n, err := p.Read(make([]byte, 4)); n != 0 || err != io.EOF {
		t.Fatalf("read after Close: %d, %v; want EOF", n, err)
	}
}

// TestMismatchNamesTheByte: the first wrong byte fails the test with its offset in the stream and in its op,
// and the write stops there.
func TestMismatchNamesTheByte(t *testing.T) {
	f := &failures{TB: t}
	stop := board.StopFrame()
	fwd, err := board.EncodeWheelRPS([4]float64{0.5, 0.5, -0.5, -0.5})
	if err != nil {
		t.Fatal(err)
	}
	p := &boardtest.Playback{T: f, Ops: []boardtest.Op{{W: stop}, {W: fwd}}}
	bad := append([]byte(nil), fwd...)
	bad[9] ^= 0x01 // a byte of the first speed
	n, err := p.Write(append(append([]byte(nil), stop...), bad...))
	want := fmt.Sprintf("write byte %d (op 1, byte 9 of its %d)", len(stop)+9, len(fwd))
	if err == nil || !strings.Contains(err.Error(), want) || n != len(stop)+9 {
		t.Fatalf("Write = %d, %v; want %d bytes and an error naming %q", n, err, len(stop)+9, want)
	}
	if m := f.all(); len(m) != 1 || !strings.Contains(m[0], want) {
		t.Fatalf("test failures %q, want one naming %q", m, want)
	}
	if _, err := p.Write(fwd[9:]); err == nil {
		t.Fatal("a write after a mismatch succeeded")
	}
	if err := p.Close(); err == nil {
		t.Fatal("Close after a mismatch returned nil")
	}
	if m := f.all(); len(m) != 1 {
		t.Fatalf("the mismatch was reported %d times: %q", len(m), m)
	}
}

func TestPastTheScript(t *testing.T) {
	f := &failures{TB: t}
	stop := board.StopFrame()
	p := &boardtest.Playback{T: f, Ops: []boardtest.Op{{W: stop}}}
	if _, err := p.Write(stop); err != nil {
		t.Fatal(err)
	}
	_, err := p.Write(stop[:1])
	want := fmt.Sprintf("write byte %d (0xaa) is past the script's %d bytes", len(stop), len(stop))
	if err == nil || !strings.Contains(err.Error(), want) || len(f.all()) != 1 {
		t.Fatalf("Write past the end = %v (failures %q), want %q", err, f.all(), want)
	}
}

// TestUnfinished: Close fails the test when a scripted write never came or an answer was never read.
func TestUnfinished(t *testing.T) {
	stop := board.StopFrame()
	for _, tc := range []struct {
		name  string
		write []byte
		read  int
		want  string
	}{
		{"write missing", stop[:3], 0, fmt.Sprintf("wrote 3 of %d bytes (stopped in op 0 at its byte 3), read 0 of %d", len(stop), len(battery))},
		{"answer unread", stop, 2, fmt.Sprintf("wrote %d of %d bytes (stopped in op 1 at its byte 0), read 2 of %d", len(stop), len(stop), len(battery))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &failures{TB: t}
			p := &boardtest.Playback{T: f, Ops: []boardtest.Op{{W: stop, R: battery}}}
			if _, err := p.Write(tc.write); err != nil {
				t.Fatal(err)
			}
			if tc.read > 0 {
				readN(t, p, tc.read)
			}
			err := p.Close()
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(f.all()) != 1 {
				t.Fatalf("Close = %v (failures %q), want %q", err, f.all(), tc.want)
			}
		})
	}
}

// TestBlockedReadEnds: a Read waiting for an answer returns on Close (io.EOF) and on a deadline set from
// another goroutine (os.ErrDeadlineExceeded), the way the driver unblocks its board reader.
func TestBlockedReadEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(p *boardtest.Playback)
		want error
	}{
		{"Close", func(p *boardtest.Playback) { p.Close() }, io.EOF},
		{"SetReadDeadline", func(p *boardtest.Playback) { p.SetReadDeadline(time.Unix(1, 0)) }, os.ErrDeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &boardtest.Playback{Ops: []boardtest.Op{{W: board.StopFrame(), R: battery}}}
			done := make(chan error, 1)
			go func() { _, err := p.Read(make([]byte, 16)); done <- err }()
			select {
			case err := <-done:
				t.Fatalf("Read returned %v before its answer was due", err)
			case <-time.After(20 * time.Millisecond):
			}
			tc.end(p)
			select {
			case err := <-done:
				if !errors.Is(err, tc.want) {
					t.Fatalf("Read = %v, want %v", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Read still blocked")
			}
		})
	}
}

// TestRecordPlaysBack: a conversation recorded through Record (here over a Playback standing for the real
// port) is the script that plays it back again, and a different write on the replay fails at its byte.
func TestRecordPlaysBack(t *testing.T) {
	stop := board.StopFrame()
	script := []boardtest.Op{{R: imu}, {W: stop, R: battery}, {W: boardtest.Frames(stop, stop), R: imu}}
	talk := func(port io.ReadWriter) error {
		buf := make([]byte, 64)
		if _, err := io.ReadFull(port, buf[:len(imu)]); err != nil {
			return err
		}
		if _, err := port.Write(stop); err != nil {
			return err
		}
		if _, err := io.ReadFull(port, buf[:len(battery)]); err != nil {
			return err
		}
		for range 2 {
			if _, err := port.Write(stop); err != nil {
				return err
			}
		}
		_, err := io.ReadFull(port, buf[:len(imu)])
		return err
	}
	real := &boardtest.Playback{T: t, Ops: script}
	rec := &boardtest.Recorder{Port: real}
	if err := talk(rec); err != nil {
		t.Fatal(err)
	}
	if err := real.Close(); err != nil {
		t.Fatal(err)
	}
	got := rec.Ops()
	if fmt.Sprint(got) != fmt.Sprint(script) {
		t.Fatalf("recorded %x, want %x", got, script)
	}
	again := &boardtest.Playback{T: t, Ops: got}
	if err := talk(again); err != nil {
		t.Fatal(err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	f := &failures{TB: t}
	wrong := &boardtest.Playback{T: f, Ops: got}
	buf := make([]byte, len(imu))
	io.ReadFull(wrong, buf)
	if _, err := wrong.Write(battery); err == nil || len(f.all()) != 1 || !strings.Contains(f.all()[0], fmt.Sprintf("write byte 2 (op 1, byte 2 of its %d): got 0x00, want 0x03", len(stop)) /* both start AA 55 */) {
		t.Fatalf("a different write on the replay: %v (failures %q)", err, f.all())
	}
}
