//go:build ros2 && linux && cgo

package ros2_test

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/target"
)

// TestROS2BridgeFailsStopPathRuns: `rosorin-base run --ros2` (built with the tag) whose bridge cannot start
// still drives the stop path: enable, drive and e-stop over the socket, the stop frame reaches the simulated
// board and the wheels stop; the supervisor logs the bridge as failed at ERROR, once, with the bridge's last
// words, while it retries. Two ways to fail: the bridge binary does not exist, and a real dynamic-link
// failure: a copy of the tagged bridge whose DT_NEEDED names a libddsc that is not installed (what the loader
// sees when libddsc is removed), checked first to fail to load on its own.
func TestROS2BridgeFailsStopPathRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tagged binaries and starts a simulated robot")
	}
	loopbackEnv(t)
	base := buildTagged(t)
	dir := filepath.Dir(base)
	noLib := filepath.Join(t.TempDir(), "rosorin-ros2")
	missing := breakDDSNeeded(t, filepath.Join(dir, "rosorin-ros2"), noLib)
	out, err := exec.Command(noLib, "--help").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "error while loading shared libraries") || !strings.Contains(string(out), missing) {
		t.Fatalf("the patched bridge loads (%v): the test would prove nothing\n%s", err, out)
	}
	t.Logf("patched bridge on its own: %s", bytes.TrimSpace(out))
	for _, c := range []struct{ name, bridge, words string }{
		{"missing binary", filepath.Join(dir, "no-such-rosorin-ros2"), "no such file"},
		{"libddsc not loadable", noLib, missing},
	} {
		t.Run(c.name, func(t *testing.T) { stopPathWithoutBridge(t, base, c.bridge, c.words) })
	}
}

func stopPathWithoutBridge(t *testing.T, base, bridge, words string) {
	t.Setenv("ROSORIN_ROS2_BRIDGE", bridge)
	st, logPath := startSimTarget(t, 60*time.Second, target.SimConfig{BaseBin: base})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(60*time.Second))
	defer cancel()
	logText := func() string { b, _ := os.ReadFile(logPath); return string(b) }
	c, sm := st.Client(), st.Sim()
	c.Reset(ctx)
	if rep, err := c.Enable(ctx, true); err != nil || !rep.Success {
		t.Fatalf("enable: %v %+v", err, rep)
	}
	s, err := c.StreamCmdVel(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dctx, dcancel := context.WithCancel(ctx)
	defer dcancel()
	go func() {
		for dctx.Err() == nil {
			s.Send(api.Twist{VX: 0.1})
			time.Sleep(30 * time.Millisecond)
		}
		s.Close()
	}()
	turning := func() bool {
		for _, w := range sm.Truth().WheelRPS {
			if w != 0 {
				return true
			}
		}
		return false
	}
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		if !turning() {
			return fmt.Errorf("wheels still")
		}
		return nil
	}); err != nil {
		t.Fatal("driving over the socket with the bridge failed: the wheels never turned")
	}
	seq := sm.RxSeq()
	t0 := time.Now()
	if rep, err := c.EStop(ctx, "test: e-stop without the bridge"); err != nil || !rep.Success {
		t.Fatalf("e-stop: %v %+v", err, rep)
	}
	wctx, wcancel := context.WithTimeout(ctx, testkit.Bound(2*time.Second))
	f, _, err := sm.WaitFrameSince(wctx, seq, stopFrame)
	wcancel()
	if err != nil {
		t.Fatalf("no stop frame at the board within 2 s of the e-stop: %v", err)
	}
	t.Logf("stop frame at the board %.1f ms after POST /v1/estop", float64(f.T.Sub(t0).Microseconds())/1000)
	if err := testkit.Eventually(testkit.Bound(3*time.Second), func() error {
		if turning() {
			return fmt.Errorf("wheels turning")
		}
		return nil
	}); err != nil {
		t.Fatal("the wheels did not stop after the e-stop")
	}
	// Latched (also across a driver restart: a loaded machine can trip the driver watchdog).
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		if st, err := c.State(ctx); err != nil || st.EStop == nil {
			return fmt.Errorf("e-stop not latched (%v)", err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The bridge has been retried meanwhile (1 s, 2 s, ...): failed at ERROR once, later failures quieter.
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		if !strings.Contains(logText(), "ROS 2 bridge failed") {
			return fmt.Errorf("no failure logged")
		}
		return nil
	}); err != nil {
		t.Fatal("the supervisor did not report the bridge as failed")
	}
	time.Sleep(2 * time.Second) // at least one retry
	var errs []string
	for _, l := range strings.Split(logText(), "\n") {
		if strings.Contains(l, "ROS 2 bridge failed") && strings.Contains(l, "level=ERROR") {
			errs = append(errs, l)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], words) {
		t.Fatalf("want one ERROR line naming %q, got %d:\n%s", words, len(errs), strings.Join(errs, "\n"))
	}
	t.Logf("supervisor: %s", errs[0])
	if strings.Contains(logText(), "ROS 2 bridge started") && !strings.Contains(errs[0], "exited at start") {
		t.Errorf("bridge reported started and failed otherwise than at start")
	}
}

// breakDDSNeeded copies the ELF binary src to dst with its DT_NEEDED entry for libddsc renamed (same length,
// "libddsc.so" -> "libddsc.sx"), so the dynamic loader refuses it exactly as when libddsc is not installed.
// It returns the name the loader will miss.
func breakDDSNeeded(t *testing.T, src, dst string) string {
	t.Helper()
	f, err := elf.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := f.ImportedLibraries()
	sec := f.Section(".dynstr")
	f.Close()
	var lib string
	for _, l := range libs {
		if strings.HasPrefix(l, "libddsc.so") {
			lib = l
		}
	}
	if lib == "" || sec == nil {
		t.Fatalf("%s does not need libddsc (%v): not a tagged bridge", src, libs)
	}
	gone := strings.Replace(lib, "libddsc.so", "libddsc.sx", 1)
	for _, d := range []string{"/lib", "/usr/lib", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib"} {
		if _, err := os.Stat(filepath.Join(d, gone)); err == nil {
			t.Fatalf("%s exists in %s", gone, d)
		}
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	str := b[sec.Offset : sec.Offset+sec.Size]
	i := bytes.Index(str, []byte("\x00"+lib+"\x00"))
	if i < 0 {
		t.Fatalf("%s not in .dynstr", lib)
	}
	copy(str[i+1:], gone)
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return gone
}
