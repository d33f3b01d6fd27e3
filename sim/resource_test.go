//go:build !race

package sim

// Real-time end-to-end tests over ptys: CI runs them without -race (see .ci/run).

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
)

// TestMain doubles as a bare simulator process for TestCPU: with ROSORIN_SIM_CHILD_DIR set it runs a
// floor sim in that directory until SIGTERM.
func TestMain(m *testing.M) {
	if dir := os.Getenv("ROSORIN_SIM_CHILD_DIR"); dir != "" {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		s, err := Start(ctx, Config{Dir: dir, World: "floor", Seed: 60})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("ready")
		<-ctx.Done()
		s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCPU measures the simulator alone (a child process, read from /proc like ps) at the default rates
// while both devices are read: it must stay well under 5 % of one core.
func TestCPU(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ROSORIN_SIM_CHILD_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("child sim: %q %v", line, err)
	}
	b := openBoard(t, filepath.Join(dir, BoardLinkName))
	l := openLidar(t, filepath.Join(dir, LidarLinkName))
	time.Sleep(500 * time.Millisecond)
	c0, w0 := procCPU(t, cmd.Process.Pid), time.Now()
	time.Sleep(5 * time.Second)
	cpu := (procCPU(t, cmd.Process.Pid) - c0).Seconds() / time.Since(w0).Seconds()
	t0 := w0.Add(time.Second)
	imu := float64(len(b.since(t0, board.FuncIMU))) / time.Since(t0).Seconds()
	scans := len(l.scansSince(t0))
	t.Logf("simulator CPU %.2f %% of one core over 5 s (IMU %.1f Hz, %d scans in %.1f s read meanwhile)", 100*cpu, imu, scans, time.Since(t0).Seconds())
	if cpu > 0.05 {
		t.Errorf("simulator CPU %.1f %% of one core, want well under 5 %%", 100*cpu)
	}
	if imu < 100 || scans < 30 {
		t.Errorf("the clients were not fed while measuring: IMU %.1f Hz, %d scans", imu, scans)
	}
}

// procCPU is utime + stime of a process from /proc/PID/stat (clock ticks of 10 ms, USER_HZ = 100).
func procCPU(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// TestNoLeaks: after Close every goroutine the sim started has exited (USB drop and re-plug included),
// Close is idempotent and faults after it say ErrClosed. Not parallel: nothing else runs meanwhile.
func TestNoLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := Start(context.Background(), Config{Dir: t.TempDir(), World: "floor", Seed: 61})
	if err != nil {
		t.Fatal(err)
	}
	b := openBoard(t, s.BoardPath())
	l := openLidar(t, s.LidarPath())
	time.Sleep(200 * time.Millisecond)
	s.USBDrop(100 * time.Millisecond)
	s.LidarUnplug(100 * time.Millisecond)
	time.Sleep(400 * time.Millisecond)
	b.close()
	l.close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := s.Hang(true); err != ErrClosed {
		t.Errorf("fault after Close: %v, want ErrClosed", err)
	}
	if !waitUntil(2*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after Close\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}
