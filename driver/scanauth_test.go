// The scan sender rule (scanauth.go) with real processes: helpers started from this test binary, named as
// a test asks, connect over the real socket. Real time: waits are widened under -race (testkit.Bound).
package driver

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/testkit"
)

// startScanHelper starts this test binary as a scan sender named comm ("" keeps the test binary's name).
func startScanHelper(t *testing.T, sock, comm string) (*exec.Cmd, chan int) {
	t.Helper()
	var env []string
	if comm != "" {
		env = append(env, "ROSORIN_TEST_COMM="+comm)
	}
	c := helperCmdEnv(t, sock, "scans", env...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	code := make(chan int, 1)
	go func() {
		err := c.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			code <- 0
		case errors.As(err, &ee):
			code <- ee.ExitCode()
		default:
			code <- -1
		}
	}()
	t.Cleanup(func() { c.Process.Kill(); <-code })
	return c, code
}

func exitWithin(t *testing.T, code chan int, d time.Duration) int {
	t.Helper()
	select {
	case c := <-code:
		code <- c // for the cleanup
		return c
	case <-time.After(d):
		t.Fatalf("scan helper still running after %v", d)
		return -1
	}
}

// TestStandScansOnlyFromTheSupervisorsReader: a driver under a supervisor (this test process plays the
// supervisor: SupervisorPID is its pid) takes scans only from its child named api.ReaderComm. This process
// itself (not its own child) and a child of another name are refused with 403 and counted; while only they
// send, software commands do not move the wheels (blocked "no scan"). The child named like the reader is
// accepted, reported as the reader in the state record, and the wheels turn.
func TestStandScansOnlyFromTheSupervisorsReader(t *testing.T) {
	s := newStand(t, func(o *Options) { o.SupervisorPID = os.Getpid() })
	// This process, named driver.test, child of go test.
	ss, err := s.cl.StreamScans(s.ctx())
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if ss.Send(api.Scan{Stamp: time.Now(), AngleIncrement: 0.1, Ranges: api.Ranges{1}}) != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	_, err = ss.Close()
	var he *api.HTTPError
	if !errors.As(err, &he) || he.Status != 403 || !strings.Contains(he.Message, "scan gate") {
		t.Fatalf("scans from a process that is not the supervisor's child: %v, want 403", err)
	}
	// A child of the supervisor that is not the reader.
	_, code := startScanHelper(t, s.sock, "")
	if c := exitWithin(t, code, testkit.Bound(5*time.Second)); c != 3 {
		t.Fatalf("scans from the supervisor's child named %q: helper exit %d, want 3 (refused)", "driver.test", c)
	}
	// Nothing moves on software commands: the scan gate never saw a scan.
	s.enable(true)
	from := s.b.count()
	p := s.publish(api.Twist{VX: 0.2})
	time.Sleep(800 * time.Millisecond)
	for _, f := range s.b.snapshot()[from:] {
		if !f.zero() {
			p.halt()
			t.Fatalf("wheels commanded %v with only refused scan senders", f.rps)
		}
	}
	st := s.state()
	if st.Blocked == nil || *st.Blocked != motion.BlockNoScan || st.ScanAgeS != nil || st.PIDs.LidarReader != 0 {
		t.Fatalf("state with refused senders: blocked %v, scan age %v, reader %d; want 'no scan', none, 0",
			st.Blocked, st.ScanAgeS, st.PIDs.LidarReader)
	}
	if st.Link.RefusedScans != 2 {
		t.Errorf("link.refused_scans %d, want 2", st.Link.RefusedScans)
	}
	if n := s.logs.count("scans refused"); n < 1 {
		t.Errorf("refusal not logged")
	}
	// The reader: the supervisor's child named rosorin-lidar.
	reader, code := startScanHelper(t, s.sock, api.ReaderComm)
	if _, _, ok := s.b.waitFrame(from, testkit.Bound(3*time.Second), moving); !ok {
		t.Fatalf("wheels never turned with the reader's scans; state %+v", s.state())
	}
	p.halt()
	st = s.state()
	if st.PIDs.LidarReader != reader.Process.Pid || st.ScanAgeS == nil {
		t.Errorf("state: lidar_reader %d (want the reader %d), scan age %v", st.PIDs.LidarReader, reader.Process.Pid, st.ScanAgeS)
	}
	select {
	case c := <-code:
		t.Fatalf("the reader's stream ended (exit %d)", c)
	default:
	}
}

// TestStandScansRefusedFromAnotherParent: a process named like the reader whose parent is not the driver's
// supervisor is refused (the name alone is anyone's to take).
func TestStandScansRefusedFromAnotherParent(t *testing.T) {
	s := newStand(t, func(o *Options) { o.SupervisorPID = os.Getppid() })
	_, code := startScanHelper(t, s.sock, api.ReaderComm)
	if c := exitWithin(t, code, testkit.Bound(5*time.Second)); c != 3 {
		t.Fatalf("a %s whose parent is not the supervisor: helper exit %d, want 3 (refused)", api.ReaderComm, c)
	}
	if st := s.state(); st.ScanAgeS != nil || st.PIDs.LidarReader != 0 || st.Link.RefusedScans != 1 {
		t.Fatalf("state: scan age %v, reader %d, refused %d; want none, 0, 1", st.ScanAgeS, st.PIDs.LidarReader, st.Link.RefusedScans)
	}
}
