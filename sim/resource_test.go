//go:build !race

package sim

// Real-time end-to-end tests over ptys: CI runs them without -race (see .ci/run).

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestResources: at the default rates, with both devices read by clients, the whole test process (sim and
// clients) stays well under 5 % of one core; after Close every goroutine the sim started has exited, USB
// drops and re-plugs included. Not parallel, so nothing else runs in the process meanwhile.
func TestResources(t *testing.T) {
	before := runtime.NumGoroutine()
	s, err := Start(context.Background(), Config{Dir: t.TempDir(), World: "floor", Seed: 60})
	if err != nil {
		t.Fatal(err)
	}
	b := openBoard(t, s.BoardPath())
	l := openLidar(t, s.LidarPath())
	time.Sleep(300 * time.Millisecond)
	cpu0, wall0 := cpuTime(t), time.Now()
	time.Sleep(3 * time.Second)
	cpu := (cpuTime(t) - cpu0).Seconds() / time.Since(wall0).Seconds()
	t.Logf("CPU of sim + both clients: %.2f %% of one core", 100*cpu)
	if cpu > 0.05 {
		t.Errorf("CPU %.1f %% of one core, want well under 5 %%", 100*cpu)
	}
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

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Example starts a stand simulator and prints where its devices are. A driver opens BoardPath at
// 1,000,000 baud and LidarPath at 230400 baud exactly as it would open /dev/ttyACM0 and /dev/lidar.
func Example() {
	dir, _ := os.MkdirTemp("", "rosorin-sim-example")
	defer os.RemoveAll(dir)
	s, err := Start(context.Background(), Config{Dir: dir, World: "stand", Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	fmt.Println(s.BoardPath() == dir+"/ttyACM0", s.LidarPath() == dir+"/lidar")
	// Output: true true
}
