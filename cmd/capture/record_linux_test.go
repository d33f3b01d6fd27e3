//go:build linux

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// feeder has the board emit one IMU frame every period until stopped, and counts the bytes.
type feeder struct {
	stop    chan struct{}
	done    chan struct{}
	written atomic.Int64
}

func feed(b *boardtest.Board, period time.Duration) *feeder {
	f := &feeder{stop: make(chan struct{}), done: make(chan struct{})}
	frame := board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}, Gyro: [3]float32{1, 2, 3}})
	go func() {
		defer close(f.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-f.stop:
				return
			case <-tick.C:
				if err := b.Emit(frame); err == nil {
					f.written.Add(int64(len(frame)))
				}
			}
		}
	}()
	return f
}

func (f *feeder) end() { close(f.stop); <-f.done }

// startRecorder starts `capture record` on a pty board's slave and waits until bytes reach the .part file.
func startRecorder(t *testing.T, bin, out string) (*exec.Cmd, *boardtest.Board, *feeder, *testkit.LockedBuffer) {
	t.Helper()
	b := boardtest.OpenPTY(t, boardtest.Options{})
	var stderr testkit.LockedBuffer
	cmd := exec.Command(bin, "record", "--device", b.SlaveName(), "--baud", "1000000", "--out", out)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	fd := feed(b, 2*time.Millisecond)
	t.Cleanup(func() {
		select {
		case <-fd.done:
		default:
			fd.end()
		}
	})
	err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		st, err := os.Stat(out + mcapfile.PartSuffix)
		if err != nil || st.Size() < 2000 {
			return fmt.Errorf("no data in %s yet (%v); stderr %s", out, err, stderr.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cmd, b, fd, &stderr
}

// TestRecordSIGKILLRecover kills the recorder with SIGKILL at random moments and recovers every file: the
// data lost (kill time - last recovered message) stays under one second. ROSORIN_KILLS=N sets the count.
func TestRecordSIGKILLRecover(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	kills := 6
	if n, err := strconv.Atoi(os.Getenv("ROSORIN_KILLS")); err == nil && n > 0 {
		kills = n // for the figure in docs/capture.md
	}
	var worst time.Duration
	var losses []time.Duration
	for i := 0; i < kills; i++ {
		out := filepath.Join(dir, fmt.Sprintf("kill%d.mcap", i))
		cmd, _, fd, _ := startRecorder(t, bin, out)
		time.Sleep(time.Duration(100+rand.IntN(900)) * time.Millisecond)
		killed := time.Now()
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		fd.end()
		fixed := out + ".recovered"
		stdout, stderr, code := runCmd(t, nil, "recover", out+mcapfile.PartSuffix, fixed)
		if code != 0 {
			t.Fatalf("kill %d: recover exit %d: %s", i, code, stderr)
		}
		info, err := mcapfile.DescribeFile(fixed, 0)
		if err != nil {
			t.Fatal(err)
		}
		if info.Ended != mcapfile.EndRecovered && info.Ended != mcapfile.EndClean || info.Messages < 10 {
			t.Fatalf("kill %d: recovered file %+v; recover said %s", i, info, stdout)
		}
		loss := killed.Sub(time.Unix(0, int64(info.End)))
		losses = append(losses, loss)
		worst = max(worst, loss)
	}
	t.Logf("SIGKILL loss over %d kills (kill time - last recovered message): %s", kills, testkit.Figures(losses))
	if limit := testkit.Bound(time.Second); worst > limit {
		t.Fatalf("worst loss %s > %s", worst, limit)
	}
}

// TestRecordCleanStop records until SIGTERM: the file is finished (clean, indexed) and holds every byte
// written into the pty and one Imu message per frame.
func TestRecordCleanStop(t *testing.T) {
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "clean.mcap")
	cmd, _, fd, stderr := startRecorder(t, bin, out)
	time.Sleep(300 * time.Millisecond)
	fd.end()
	time.Sleep(testkit.Bound(300 * time.Millisecond)) // the recorder drains the pty
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("record: %v; stderr %s", err, stderr.String())
	}
	info, err := mcapfile.DescribeFile(out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out + mcapfile.PartSuffix); !os.IsNotExist(err) {
		t.Fatalf(".part left: %v", err)
	}
	frames := fd.written.Load() / int64(len(board.EncodeIMU(board.IMU{})))
	decoded := capture.DecodedChannels(capture.Board, capture.FromDevice) // /imu, /battery, /joy, ... by rank
	if info.Ended != mcapfile.EndClean || len(info.Channels) != 1+len(decoded) || info.Channels[1].Topic != "/imu" ||
		info.Channels[2].Topic != "/battery" || info.Channels[3].Topic != "/joy" ||
		int64(info.Channels[0].Bytes) != fd.written.Load() || int64(info.Channels[1].Messages) != frames {
		t.Fatalf("info %+v channels %+v %+v; wrote %d bytes, %d frames", info, info.Channels[0], info.Channels[1],
			fd.written.Load(), frames)
	}
	text, _, code := runCmd(t, nil, "info", out)
	if code != 0 || !strings.Contains(string(text), "ended:     clean") || !strings.Contains(string(text), "/serial/board/rx") {
		t.Fatalf("info: exit %d\n%s", code, text)
	}
	js, _, code := runCmd(t, nil, "decode", "--summary-only", out)
	want := fmt.Sprintf(`"frames":%d,`, frames)
	if code != 0 || !strings.Contains(string(js), want) {
		t.Fatalf("decode: exit %d, want %s in\n%s", code, want, js)
	}
}

// TestRecordRefusesHeldPort: a port another process holds with flock (as the supervisor does) is refused
// with a message naming the holder and the alternatives.
func TestRecordRefusesHeldPort(t *testing.T) {
	bin := buildBinary(t)
	b := boardtest.OpenPTY(t, boardtest.Options{})
	if err := unix.Flock(int(b.TTY().Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "x.mcap")
	msg, err := exec.Command(bin, "record", "--device", b.SlaveName(), "--out", out).CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "held exclusively") ||
		!strings.Contains(string(msg), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(string(msg), "--capture") || !strings.Contains(string(msg), "capture tap") {
		t.Fatalf("err %v, output %s", err, msg)
	}
	if _, err := os.Stat(out + mcapfile.PartSuffix); !os.IsNotExist(err) {
		t.Fatalf("a refused recording left a file: %v", err)
	}
}
