//go:build ros2 && linux && cgo

package ros2_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/procfs"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/target"
)

// TestMeasureCPU measures the CPU and memory of the driver service with and without --ros2 over
// ROSORIN_ROS2_MEASURE seconds (unset: skipped): the driver child, the supervisor and, with --ros2, the
// bridge child while the C peer subscribes every topic (so the IMU really goes out at 110 Hz). Figures in
// docs/ros2.md.
func TestMeasureCPU(t *testing.T) {
	secs, _ := strconv.Atoi(os.Getenv("ROSORIN_ROS2_MEASURE"))
	if secs <= 0 {
		t.Skip("set ROSORIN_ROS2_MEASURE=SECONDS to measure")
	}
	loopbackEnv(t)
	dir := t.TempDir()
	base := buildTagged(t)
	peerBin := buildPeer(t)
	for _, withROS2 := range []bool{false, true} {
		v := ""
		if withROS2 {
			v = "1"
		}
		t.Setenv("ROSORIN_ROS2", v)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		st, err := target.StartSim(ctx, target.SimConfig{BaseBin: base, BaseLog: filepath.Join(dir, "base-"+v+".log"), Seed: 1})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		s, err := st.Client().State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		procs := map[string]int{"driver": s.PIDs.Driver, "supervisor": s.PIDs.Supervisor}
		if withROS2 {
			p := startPeer(t, peerBin)
			p.wait(t, 0, "imu ", 10*time.Second, nil)
			procs["bridge"] = childWithArg(t, s.PIDs.Supervisor, "ros2")
		}
		time.Sleep(time.Second)
		before := map[string]uint64{}
		for k, pid := range procs {
			before[k] = cpuTicks(t, pid)
		}
		t0 := time.Now()
		time.Sleep(time.Duration(secs) * time.Second)
		el := time.Since(t0).Seconds()
		for k, pid := range procs {
			ticks := cpuTicks(t, pid) - before[k]
			t.Logf("--ros2=%v %-10s pid %d: CPU %.1f%% of one core over %.0f s, VmRSS %s", withROS2, k, pid,
				float64(ticks)/100/el*100, el, rss(pid))
		}
		st.Close()
	}
}

func cpuTicks(t *testing.T, pid int) uint64 {
	s, err := procfs.ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return s.UTime + s.STime
}

func rss(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:"))
		}
	}
	return "?"
}

// childWithArg finds the child of ppid whose command line has arg as its first argument, or whose program
// is rosorin-ARG (the bridge, rosorin-ros2, is a binary of its own).
func childWithArg(t *testing.T, ppid int, arg string) int {
	var pid int
	err := testkit.Eventually(10*time.Second, func() error {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			n, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if s, err := procfs.ReadStat(n); err != nil || s.PPID != ppid {
				continue
			}
			cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", n))
			if f := bytes.Split(cl, []byte{0}); len(f) > 1 && (string(f[1]) == arg || filepath.Base(string(f[0])) == "rosorin-"+arg) {
				pid = n
				return nil
			}
		}
		return fmt.Errorf("no child %q of %d", arg, ppid)
	})
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
