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

	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/supervisor"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
)

// The USB drop (the board vanishes while the wheels turn, and comes back) is shown once, against the sim with
// the wheels turning, in driver/simtest (TestUSBDrop3s, TestUSBDrop8s): the supervisor's status and log
// while the port is gone, the first frame after the return, the latched restart.

// TestReaderRespawn: SIGKILL of the LiDAR reader: a new reader about 2 s later; the driver is untouched.
// With --no-lidar-respawn (the negative control) it stays dead. The exact delay, and that it holds for every
// exit, is TestVirtualReaderRespawn's; this is the real process and the flag.
func TestReaderRespawn(t *testing.T) {
	dir := t.TempDir()
	b := newFakeBoard(t, filepath.Join(dir, "ttyACM0"))
	s := startService(t, dir, b.Path(), "--lidar", filepath.Join(dir, "lidar"))
	st := s.waitStatus(3*time.Second, "reader", func(st supervisor.Status) bool { return st.ReaderPID != 0 })
	t0 := time.Now()
	_ = syscall.Kill(st.ReaderPID, syscall.SIGKILL)
	old := st.ReaderPID
	st = s.waitStatus(5*time.Second, "reader respawned", func(st supervisor.Status) bool {
		return st.ReaderPID != 0 && st.ReaderPID != old
	})
	d := time.Since(t0)
	if d < 1900*time.Millisecond || d > testkit.Bound(3*time.Second) {
		t.Errorf("reader respawned %s after SIGKILL, want about 2 s", testkit.Ms(d))
	}
	if st.DriverStarts != 1 {
		t.Errorf("driver restarted %d times because of a reader kill", st.DriverStarts-1)
	}
	t.Logf("reader SIGKILL -> respawn: %s", testkit.Ms(d))

	dir2 := t.TempDir()
	b2 := newFakeBoard(t, filepath.Join(dir2, "ttyACM0"))
	s2 := startService(t, dir2, b2.Path(), "--lidar", filepath.Join(dir2, "lidar"), "--no-lidar-respawn")
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
	s := startService(t, dir, b.Path(), "--lidar", "", "--restart-delay", "2s")
	fi, err := os.Stat(childproc.RawPath(s.socket))
	if err != nil || fi.Mode().Perm() != 0o660 {
		t.Fatalf("raw socket %v mode %v, want 0660", err, fi.Mode())
	}
	c, err := net.Dial("unix", childproc.RawPath(s.socket))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s.waitStatus(2*time.Second, "raw client", func(st supervisor.Status) bool { return st.RawClients == 1 })
	imu := board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}})
	expectRaw := func(what string) {
		t.Helper()
		if err := b.Emit(imu); err != nil {
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
	c := exec.Command(rosorinBase, "stop-motors", "--device", link, "--wait", "0.5s")
	out, _ := c.CombinedOutput()
	if c.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "cannot open "+link+" for 0 s") &&
		!strings.Contains(string(out), "cannot open "+link) {
		t.Errorf("no device, --wait 0.5s: exit %d, %q", c.ProcessState.ExitCode(), out)
	}

	var stdout, stderr bytes.Buffer
	c = exec.Command(rosorinBase, "stop-motors", "--device", link, "--wait", "10s")
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
	if n := countStops(b, tPlug); n != 3 {
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
