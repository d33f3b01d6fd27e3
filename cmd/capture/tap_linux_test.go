//go:build linux

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/internal/testkit/mcaptest"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
	"github.com/rosorin/rosorin/serialport"
)

// startTap runs `capture tap` on a pty board (boardtest) and returns the board, the program's end of the tap
// and the child.
func startTap(t *testing.T, out string) (dev *boardtest.Board, host *os.File, cmd *exec.Cmd, log *testkit.LockedBuffer) {
	t.Helper()
	bin := buildBinary(t)
	dev = boardtest.OpenPTY(t, boardtest.Options{})
	link := filepath.Join(filepath.Dir(out), "ttyACM0")
	log = &testkit.LockedBuffer{}
	cmd = exec.Command(bin, "tap", "--device", dev.SlaveName(), "--link", link, "--out", out)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error { _, err := os.Stat(link); return err }); err != nil {
		t.Fatalf("no link: %v\n%s", err, log.String())
	}
	host, err := serialport.Open(link, serialport.Options{Baud: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Close() })
	// The tap relays once its inotify watch has counted this open: probe with IMU frames until one arrives.
	imu := board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}})
	buf := make([]byte, 4096)
	deadline := time.Now().Add(testkit.Bound(5 * time.Second))
	for {
		if err := dev.Emit(imu); err != nil {
			t.Fatal(err)
		}
		_ = host.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if n, _ := host.Read(buf); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no frame reached the program through the tap\n%s", log.String())
		}
	}
	for {
		_ = host.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if n, err := host.Read(buf); n == 0 || err != nil {
			break
		}
	}
	_ = host.SetReadDeadline(time.Time{})
	return dev, host, cmd, log
}

// exchange sends IMU frames device->program and stop frames program->device through the tap.
func exchange(t *testing.T, b *boardtest.Board, host *os.File, n int) {
	t.Helper()
	dev := b.Master() // the program's bytes from its first, as the pty master reads them
	imu := board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}})
	stop := board.StopFrame()
	got := make([]byte, len(imu))
	back := make([]byte, len(stop))
	for i := 0; i < n; i++ {
		if _, err := dev.Write(imu); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(host, got); err != nil || string(got) != string(imu) {
			t.Fatalf("frame %d to the program: % x, %v", i, got, err)
		}
		if _, err := host.Write(stop); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(dev, back); err != nil || string(back) != string(stop) {
			t.Fatalf("frame %d to the device: % x, %v", i, back, err)
		}
	}
}

// TestTapSIGTERMFinishes: SIGTERM finishes the file: clean, both directions and the decoded channels.
func TestTapSIGTERMFinishes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tap.mcap")
	dev, host, cmd, log := startTap(t, out)
	exchange(t, dev, host, 50)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tap after SIGTERM: %v\n%s", err, log.String())
	}
	info, got := mcaptest.Messages(t, out)
	if info.Ended != mcapfile.EndClean || got["/imu"] < 51 || got["/wheel_twist"] != 50 || got["/serial/board/rx"] == 0 || got["/serial/board/tx"] == 0 {
		t.Fatalf("ended %s, messages %v\n%s", info.Ended, got, log.String())
	}
	text, _, code := runCmd(t, nil, "info", out)
	if code != 0 || !strings.Contains(string(text), "/serial/board/tx") || !strings.Contains(string(text), "/wheel_twist") {
		t.Fatalf("info: exit %d\n%s", code, text)
	}
}

// TestTapSIGKILLRecoverable: after a SIGKILL the .part file recovers with what was relayed up to about the
// flush period before the kill.
func TestTapSIGKILLRecoverable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tap.mcap")
	dev, host, cmd, _ := startTap(t, out)
	exchange(t, dev, host, 30)
	time.Sleep(300 * time.Millisecond) // past the 100 ms flush
	_ = cmd.Process.Kill()
	_, _ = cmd.Process.Wait()
	rec := filepath.Join(filepath.Dir(out), "rec.mcap")
	text, stderr, code := runCmd(t, nil, "recover", out+mcapfile.PartSuffix, rec)
	if code != 0 {
		t.Fatalf("recover: exit %d %s %s", code, text, stderr)
	}
	got := mcaptest.Bytes(t, rec)
	// rx: the probe frames of startTap, then the 30 exchanged
	if got["/serial/board/rx"] < 31*uint64(len(board.EncodeIMU(board.IMU{}))) || got["/serial/board/tx"] != 30*uint64(len(board.StopFrame())) {
		t.Fatalf("recovered %v; %s", got, text)
	}
}

// TestReplayCommand: `capture replay` plays a capture and reports; bad windows and files are refused.
func TestReplayCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := r.RawChannel("/serial/board/rx", "board")
	t0 := time.Unix(1_700_000_000, 0)
	for i := 0; i < 20; i++ {
		_ = r.Write(ch, t0.Add(time.Duration(i)*10*time.Millisecond), board.EncodeIMU(board.IMU{}))
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCmd(t, nil, "replay", "--dir", filepath.Join(dir, "dev"), "--rate", "10", "--hold", "1ms", path)
	if code != 0 || !strings.Contains(string(out), "replayed "+path+": 1 passes, 20 messages") || !strings.Contains(string(stderr), "ttyACM0") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, args := range [][]string{
		{"replay", "--dir", dir, "--start", "1h", path},
		{"replay", "--dir", dir, "--rate", "-1", path},
		{"replay", "--dir", dir, filepath.Join(dir, "missing.mcap")},
		{"replay", "--dir", dir},
	} {
		if _, stderr, code := runCmd(t, nil, args...); code != 1 || len(stderr) == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
