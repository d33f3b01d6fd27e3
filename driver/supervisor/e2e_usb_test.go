//go:build !race

package supervisor_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/protocol/board"
)

func TestUSBDrop3s(t *testing.T) { testUSBDrop(t, 3*time.Second) }

func TestUSBDrop8s(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 8 s drop")
	}
	testUSBDrop(t, 8*time.Second)
}

// testUSBDrop: the wheels were last told to turn, then the board's USB vanishes for gone: the supervisor says
// so loudly (status "gone" with a warning, ERROR log), and the instant the device is back the first frame the
// board gets is a stop frame; then the driver is back.
func testUSBDrop(t *testing.T, gone time.Duration) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.link, "--lidar", "")
	st0 := s.waitStatus(3*time.Second, "driver", func(st supervisor.Status) bool { return st.DriverPID != 0 })
	time.Sleep(100 * time.Millisecond)
	// A non-zero motor frame is the last thing the board heard (written through the port as the driver would).
	motor, err := board.EncodeWheelRPS([4]float64{1, 1, -1, -1})
	if err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	_, err = b.slave.Write(motor)
	b.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.waitFrame(time.Time{}, time.Second, func(a arrival) bool { return bytes.Equal(a.frame, motor) }); !ok {
		t.Fatal("motor frame not received")
	}
	tDrop := time.Now()
	b.unplug()
	st := s.waitStatus(2*time.Second, "port gone", func(st supervisor.Status) bool { return st.Port == supervisor.PortGone })
	if !strings.Contains(st.Warning, "nothing can stop") {
		t.Errorf("status while gone has warning %q", st.Warning)
	}
	s.waitStatus(2*time.Second, "driver stopped while the port is gone", func(st supervisor.Status) bool { return st.DriverPID == 0 })
	time.Sleep(gone - time.Since(tDrop))
	tBack := time.Now()
	b.plug()
	a, ok := b.waitFrame(tBack, 2*time.Second, func(a arrival) bool { return a.plug == 2 })
	if !ok {
		t.Fatalf("no frame within 2 s of the device's return")
	}
	if !a.isStop() {
		t.Fatalf("first frame after the return is % x, want the stop frame", a.frame)
	}
	delay := a.at.Sub(tBack)
	st = s.waitStatus(3*time.Second, "driver back", func(st supervisor.Status) bool {
		return st.Port == supervisor.PortOpen && st.DriverPID != 0 && st.DriverPID != st0.DriverPID
	})
	for _, f := range b.snapshot() {
		if f.plug == 2 && !f.isStop() {
			t.Errorf("non-stop frame after the return: % x", f.frame)
		}
	}
	if st.DriverStartLatched != "board port reopened after USB drop" {
		t.Errorf("driver after the return started latched %q, want %q", st.DriverStartLatched, "board port reopened after USB drop")
	}
	if delay > 300*time.Millisecond {
		t.Errorf("stop frame %s after the device returned, want within 300 ms (reopen every 10 ms)", ms(delay))
	}
	if n := strings.Count(s.log.String(), "BOARD PORT LOST"); n != 1 {
		t.Errorf("%d BOARD PORT LOST lines, want 1", n)
	}
	t.Logf("USB drop %v: stop frame %s after the device returned (%.2f s after the drop); driver back (pid %d), port %s",
		gone, ms(delay), a.at.Sub(tDrop).Seconds(), st.DriverPID, st.Port)
}

// TestReaderRespawn: SIGKILL of the LiDAR reader: a new reader about 2 s later; the driver is untouched.
// With --no-lidar-respawn (the negative control) it stays dead.
func TestReaderRespawn(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.link, "--lidar", filepath.Join(dir, "lidar"))
	st := s.waitStatus(3*time.Second, "reader", func(st supervisor.Status) bool { return st.ReaderPID != 0 })
	var delays []time.Duration
	for i := 0; i < 2; i++ {
		t0 := time.Now()
		_ = syscall.Kill(st.ReaderPID, syscall.SIGKILL)
		old := st.ReaderPID
		st = s.waitStatus(5*time.Second, "reader respawned", func(st supervisor.Status) bool {
			return st.ReaderPID != 0 && st.ReaderPID != old
		})
		d := time.Since(t0)
		delays = append(delays, d)
		if d < 1900*time.Millisecond || d > 3*time.Second {
			t.Errorf("reader respawned %s after SIGKILL, want about 2 s", ms(d))
		}
	}
	if st.DriverStarts != 1 {
		t.Errorf("driver restarted %d times because of reader kills", st.DriverStarts-1)
	}
	t.Logf("reader SIGKILL -> respawn: %s, %s", ms(delays[0]), ms(delays[1]))

	dir2 := t.TempDir()
	b2 := newFakeBoard(t, filepath.Join(dir2, "ttyACM0"))
	s2 := startService(t, dir2, b2.link, "--lidar", filepath.Join(dir2, "lidar"), "--no-lidar-respawn")
	st2 := s2.waitStatus(3*time.Second, "reader", func(st supervisor.Status) bool { return st.ReaderPID != 0 })
	_ = syscall.Kill(st2.ReaderPID, syscall.SIGKILL)
	time.Sleep(3 * time.Second)
	if st2, _ = s2.status(); st2.ReaderPID != 0 || st2.ReaderStarts != 1 {
		t.Errorf("--no-lidar-respawn: reader pid %d, %d starts; want it to stay dead", st2.ReaderPID, st2.ReaderStarts)
	}
	_ = b
}

// TestRawSocket: the board's bytes reach raw clients unchanged, also while the driver child is dead.
func TestRawSocket(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.link, "--lidar", "", "--restart-delay", "2s")
	fi, err := os.Stat(supervisor.RawPath(s.socket))
	if err != nil || fi.Mode().Perm() != 0o660 {
		t.Fatalf("raw socket %v mode %v, want 0660", err, fi.Mode())
	}
	c, err := net.Dial("unix", supervisor.RawPath(s.socket))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s.waitStatus(2*time.Second, "raw client", func(st supervisor.Status) bool { return st.RawClients == 1 })
	imu := board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}})
	expectRaw := func(what string) {
		t.Helper()
		if err := b.send(imu); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, len(imu))
		_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := ioReadFull(c, buf); err != nil || !bytes.Equal(buf, imu) {
			t.Fatalf("%s: raw read % x (%v), want % x", what, buf, err, imu)
		}
	}
	expectRaw("driver running")
	st, _ := s.status()
	_ = syscall.Kill(st.DriverPID, syscall.SIGKILL)
	s.waitStatus(time.Second, "driver dead", func(st supervisor.Status) bool { return st.DriverPID == 0 })
	expectRaw("driver dead")
}

// TestStopMotorsWaitsForDevice: stop-motors retries a missing device and sends three stop frames when it
// appears; with a short wait and no device it exits 1 with a clear message.
func TestStopMotorsWaitsForDevice(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "ttyACM0")
	c := exec.Command(bin(), "stop-motors", "--device", link, "--wait", "0.5s")
	out, _ := c.CombinedOutput()
	if c.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "cannot open "+link+" for 0 s") &&
		!strings.Contains(string(out), "cannot open "+link) {
		t.Errorf("no device, --wait 0.5s: exit %d, %q", c.ProcessState.ExitCode(), out)
	}

	var stdout, stderr bytes.Buffer
	c = exec.Command(bin(), "stop-motors", "--device", link, "--wait", "10s")
	c.Stdout, c.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	b := newFakeBoard(t, link)
	tPlug := time.Now()
	if err := c.Wait(); err != nil {
		t.Fatalf("stop-motors: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	time.Sleep(50 * time.Millisecond)
	if n := b.countStops(tPlug); n != 3 {
		t.Errorf("%d stop frames, want 3", n)
	}
	if !strings.HasPrefix(stdout.String(), "stop-motors: stop frame sent x3 (after 1.") {
		t.Errorf("stdout %q", stdout.String())
	}
	if strings.Count(stderr.String(), "unavailable") != 1 {
		t.Errorf("stderr %q: want one warning", stderr.String())
	}
	t.Logf("stop-motors: device appeared %.2f s after start; %s", tPlug.Sub(t0).Seconds(), strings.TrimSpace(stdout.String()))
}

func ioReadFull(c net.Conn, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := c.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
