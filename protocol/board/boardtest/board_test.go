package boardtest_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

func wheelFrame(t testing.TB, rps [4]float64) []byte {
	t.Helper()
	f, err := board.EncodeWheelRPS(rps)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestBoardBothWays: what the test emits (frames and garbage) reaches the host's parser, and what the host
// writes, in odd pieces, is recorded byte for byte, per write, and parsed into frames with the wheels held.
func TestBoardBothWays(t *testing.T) {
	b := boardtest.New(boardtest.Options{})
	defer b.Close()
	garbage := []byte{0x00, 0xAA, 0x13, 0x55} // junk and a false header start
	if err := b.Emit(imu, garbage); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Master().Write(battery); n != len(battery) || err != nil { // the raw-byte end emits too
		t.Fatal(n, err)
	}
	var p board.Parser
	var got []string
	buf := make([]byte, 7) // small reads: frames split across them
	for len(got) < 2 {
		n, err := b.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		p.Feed(buf[:n], func(f board.Frame) { got = append(got, board.FuncName(f.Func)) })
	}
	if strings.Join(got, " ") != "imu sys" {
		t.Fatalf("host parsed %q, want the IMU and battery frames around the garbage", got)
	}
	fwd := wheelFrame(t, [4]float64{0.5, 0.5, -0.5, -0.5})
	stream := boardtest.Frames(fwd, []byte{0x55, 0xAA}, board.EncodeMotorStopOne(1), board.StopFrame())
	for _, piece := range [][]byte{stream[:3], stream[3:20], stream[20:]} {
		if n, err := b.Write(piece); n != len(piece) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if !bytes.Equal(b.HostBytes(), stream) || len(b.Writes()) != 3 || !bytes.Equal(b.Writes()[1], stream[3:20]) {
		t.Fatalf("host bytes % x in %d writes, want % x in 3", b.HostBytes(), len(b.Writes()), stream)
	}
	r := b.Received()
	if len(r) != 3 || !bytes.Equal(r[0].Raw, fwd) || r[0].Write != 2 || r[0].Wheels != [4]float64{0.5, 0.5, -0.5, -0.5} ||
		r[1].Wheels != [4]float64{0.5, 0, -0.5, -0.5} || r[1].Stopped() || r[1].IsStop() ||
		!r[2].IsStop() || !r[2].Stopped() || r[2].Write != 2 || b.Wheels() != [4]float64{} {
		t.Fatalf("received %+v", r)
	}
	if b.Count() != 3 || len(b.Since(2)) != 1 || b.Since(5) != nil {
		t.Fatalf("Count %d, Since(2) %d frames", b.Count(), len(b.Since(2)))
	}
}

// TestObey: the wheels a board holds after each kind of motor command; ids past 3 change nothing.
func TestObey(t *testing.T) {
	start := [4]float64{1, 2, 3, 4}
	for _, tc := range []struct {
		name  string
		frame []byte
		want  [4]float64
	}{
		{"set many", boardtest.Frame(board.FuncMotor, []byte{1, 2, 0, 0, 0, 0, 0x3f, 2, 0, 0, 0, 0xbf}), [4]float64{0.5, 2, -0.5, 4}},
		{"set one", boardtest.Frame(board.FuncMotor, []byte{0, 3, 0, 0, 0x80, 0xbf}), [4]float64{1, 2, 3, -1}},
		{"set one past the wheels", boardtest.Frame(board.FuncMotor, []byte{0, 7, 0, 0, 0x80, 0xbf}), start},
		{"stop one", board.EncodeMotorStopOne(2), [4]float64{1, 2, 0, 4}},
		{"stop mask", board.EncodeMotorStopMask(0x09), [4]float64{0, 2, 3, 0}},
		{"stop all", board.StopFrame(), [4]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := board.DecodeMotor(tc.frame[4 : len(tc.frame)-1])
			if err != nil {
				t.Fatal(err)
			}
			if got := boardtest.Obey(start, c); got != tc.want {
				t.Fatalf("Obey = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEndsOfTheLine: EOF lets the host read what was sent, then ends its reads while its writes still land;
// HangUp ends reads at once and fails writes with EIO; Close fails both with os.ErrClosed and calls OnClose
// once.
func TestEndsOfTheLine(t *testing.T) {
	closes := 0
	b := boardtest.New(boardtest.Options{OnClose: func() { closes++ }})
	b.Emit(imu)
	b.EOF()
	if err := b.Emit(imu); !errors.Is(err, boardtest.ErrHungUp) {
		t.Fatalf("Emit after EOF: %v", err)
	}
	if got, err := io.ReadAll(b); err != nil || !bytes.Equal(got, imu) {
		t.Fatalf("read to the end: % x, %v; want the IMU frame then EOF", got, err)
	}
	if _, err := b.Write(board.StopFrame()); err != nil || b.Count() != 1 {
		t.Fatalf("write after EOF: %v (%d frames)", err, b.Count())
	}
	b.HangUp()
	if _, err := b.Write(board.StopFrame()); !errors.Is(err, syscall.EIO) {
		t.Fatalf("write after HangUp: %v, want EIO", err)
	}
	if _, err := b.Read(make([]byte, 8)); err != io.EOF {
		t.Fatalf("read after HangUp: %v, want EOF", err)
	}
	b.Close()
	b.Close()
	if _, err := b.Read(make([]byte, 8)); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("read after Close: %v", err)
	}
	if _, err := b.Write(board.StopFrame()); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("write after Close: %v", err)
	}
	if closes != 1 || b.Count() != 1 {
		t.Fatalf("OnClose called %d times, %d frames", closes, b.Count())
	}
}

// TestHooks: Check sends refused frames to Bad; an OnWrite error fails the write and records nothing.
func TestHooks(t *testing.T) {
	var seen [][]byte
	b := boardtest.New(boardtest.Options{
		Check: func(f board.Frame) error {
			if f.Func != board.FuncMotor {
				return errors.New("not a motor frame")
			}
			return nil
		},
		OnWrite: func(p []byte) error {
			seen = append(seen, p)
			if len(seen) == 3 {
				return errors.New("input/output error")
			}
			return nil
		},
	})
	b.Write(board.StopFrame())
	b.Write(board.EncodeKey(board.Key{ID: 1, Event: 1}))
	if _, err := b.Write(board.StopFrame()); err == nil || err.Error() != "input/output error" {
		t.Fatalf("third write: %v", err)
	}
	if bad := b.Bad(); len(bad) != 1 || bad[0].Err == nil || bad[0].Frame.Func != board.FuncKey || b.Count() != 1 || len(b.Writes()) != 2 || len(seen) != 3 {
		t.Fatalf("bad %+v, %d frames, %d writes, %d seen", bad, b.Count(), len(b.Writes()), len(seen))
	}
}

// TestBlockedReadsEnd: a host Read or a MasterEnd Read waiting for bytes returns on a deadline set from
// another goroutine, on EOF, on HangUp and on Close, the way the driver unblocks its board reader.
func TestBlockedReadsEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(b *boardtest.Board)
		want error
	}{
		{"deadline", func(b *boardtest.Board) { b.SetReadDeadline(time.Unix(1, 0)) }, os.ErrDeadlineExceeded},
		{"EOF", (*boardtest.Board).EOF, io.EOF},
		{"HangUp", (*boardtest.Board).HangUp, io.EOF},
		{"Close", func(b *boardtest.Board) { b.Close() }, os.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := boardtest.New(boardtest.Options{})
			done := make(chan error, 1)
			go func() { _, err := b.Read(make([]byte, 16)); done <- err }()
			select {
			case err := <-done:
				t.Fatalf("Read returned %v with nothing sent", err)
			case <-time.After(20 * time.Millisecond):
			}
			tc.end(b)
			if err := <-done; !errors.Is(err, tc.want) {
				t.Fatalf("Read = %v, want %v", err, tc.want)
			}
			b.Close()
		})
	}
	b := boardtest.New(boardtest.Options{})
	h := b.Master()
	h.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := h.Read(make([]byte, 4)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("MasterEnd with nothing written: %v", err)
	}
	h.SetReadDeadline(time.Time{})
	go func() { time.Sleep(10 * time.Millisecond); b.Write(board.StopFrame()) }()
	got := make([]byte, len(board.StopFrame()))
	if _, err := io.ReadFull(h, got); err != nil || !board.IsStopFrame(got) {
		t.Fatalf("MasterEnd: % x, %v", got, err)
	}
	b.Close()
	if _, err := h.Read(got); err != io.EOF {
		t.Fatalf("MasterEnd after Close: %v", err)
	}
}

// TestWait: Wait returns a frame written later from another goroutine, with its index, and on timeout the
// number of frames.
func TestWait(t *testing.T) {
	b := boardtest.New(boardtest.Options{})
	defer b.Close()
	b.Write(board.StopFrame())
	go func() {
		time.Sleep(10 * time.Millisecond)
		b.Write(wheelFrame(t, [4]float64{1, 1, 1, 1}))
	}()
	moving := func(r boardtest.Received) bool { return !r.Stopped() }
	r, i, ok := b.Wait(0, 5*time.Second, moving)
	if !ok || i != 1 || r.Wheels[0] != 1 {
		t.Fatalf("Wait = %+v, %d, %v", r, i, ok)
	}
	if _, n, ok := b.Wait(2, 10*time.Millisecond, moving); ok || n != 2 {
		t.Fatalf("Wait past the end = %d, %v; want a timeout at 2 frames", n, ok)
	}
}

// TestStreamsAndCorruption: the streams send IMU frames every tick with the battery when due; a corrupted
// line makes the host's parser count bad frames.
func TestStreamsAndCorruption(t *testing.T) {
	b := boardtest.New(boardtest.Options{})
	b.Stream(boardtest.Streams{IMU: true, BatteryMV: 12400, BatteryHz: 1})
	var p board.Parser
	counts := map[byte]int{}
	buf := make([]byte, 4096)
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
		b.SetReadDeadline(end)
		n, _ := b.Read(buf)
		p.Feed(buf[:n], func(f board.Frame) { counts[f.Func]++ })
	}
	if counts[board.FuncIMU] < 5 || counts[board.FuncSys] != 1 || counts[board.FuncGamepad] != 0 {
		t.Fatalf("in 200 ms: %v frames by function; want IMU frames and one battery report", counts)
	}
	b.SetStreams(func(s *boardtest.Streams) { s.IMU, s.Pad, s.PadValue.LY = false, true, 64 })
	if s := b.Streams(); s.IMU || !s.Pad || s.BatteryMV != 12400 {
		t.Fatalf("Streams %+v", s)
	}
	b.Corrupt(0.05)
	b.SetReadDeadline(time.Time{})
	for p.Stats() == (board.Stats{}) || counts[board.FuncGamepad] == 0 {
		b.Emit(bytes.Repeat(imu, 10))
		n, _ := b.Read(buf)
		p.Feed(buf[:n], func(f board.Frame) { counts[f.Func]++ })
	}
	b.Close()
}

// TestInABubble: inside a testing/synctest bubble the in-memory board's waits are durable: a read deadline
// passes in virtual time, exactly.
func TestInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := boardtest.New(boardtest.Options{})
		t0 := time.Now()
		b.SetReadDeadline(t0.Add(300 * time.Millisecond))
		if _, err := b.Read(make([]byte, 8)); !errors.Is(err, os.ErrDeadlineExceeded) || time.Since(t0) != 300*time.Millisecond {
			t.Fatalf("Read = %v after %v", err, time.Since(t0))
		}
		go func() { time.Sleep(time.Second); b.HangUp() }()
		b.SetReadDeadline(time.Time{})
		if _, err := b.Read(make([]byte, 8)); err != io.EOF || time.Since(t0) != 1300*time.Millisecond {
			t.Fatalf("Read = %v after %v", err, time.Since(t0))
		}
		b.Close()
	})
}

// FuzzHostWrites: whatever the host writes, in whatever pieces, the board keeps every byte, finds exactly the
// frames a parser finds in the whole stream, and holds the wheels those frames leave.
func FuzzHostWrites(f *testing.F) {
	f.Add(board.StopFrame(), uint8(3))
	f.Add(boardtest.Frames(board.EncodeMotorStopMask(5), []byte{0xAA, 0xAA, 0x55}, board.StopFrame()), uint8(1))
	f.Add(boardtest.Frame(board.FuncMotor, []byte{1, 2, 0, 0, 0, 0, 0x3f, 2, 0, 0, 0, 0xbf}), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, piece uint8) {
		b := boardtest.New(boardtest.Options{})
		step := int(piece)%16 + 1
		for i := 0; i < len(data); i += step {
			if _, err := b.Write(data[i:min(i+step, len(data))]); err != nil {
				t.Fatal(err)
			}
		}
		var want []board.Frame
		var p board.Parser
		p.Feed(data, func(f board.Frame) { want = append(want, board.Frame{Func: f.Func, Payload: bytes.Clone(f.Payload)}) })
		got := b.Received()
		if !bytes.Equal(b.HostBytes(), data) || len(got) != len(want) {
			t.Fatalf("%d bytes kept of %d, %d frames, want %d", len(b.HostBytes()), len(data), len(got), len(want))
		}
		var wheels [4]float64
		for i, r := range got {
			if r.Frame.Func != want[i].Func || !bytes.Equal(r.Frame.Payload, want[i].Payload) {
				t.Fatalf("frame %d: %+v, want %+v", i, r.Frame, want[i])
			}
			if raw, _ := want[i].Bytes(); !bytes.Equal(r.Raw, raw) {
				t.Fatalf("frame %d raw % x, want % x", i, r.Raw, raw)
			}
			if c, err := board.DecodeMotor(want[i].Payload); want[i].Func == board.FuncMotor && err == nil {
				wheels = boardtest.Obey(wheels, c)
			}
			if r.Wheels != wheels && !(wheels != wheels) { // NaN speeds never compare equal
				t.Fatalf("frame %d: wheels %v, want %v", i, r.Wheels, wheels)
			}
		}
		b.Close()
	})
}
