//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// childEnv makes the test binary a child of the cleanup tests: the named test then acts out a failure.
const childEnv = "STOPPROOF_E2E_CHILD"

// A test binary stopped by SIGINT or SIGTERM (Ctrl-C on go test, a CI job cancelled) removes its folder of
// binaries (30 MB) before it dies.
func TestE2EFolderGoesOnInterrupt(t *testing.T) {
	if os.Getenv(childEnv) == "hang" {
		os.Stdout.WriteString("binDir=" + binDir + "\n")
		time.Sleep(time.Minute)
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestE2EFolderGoesOnInterrupt$", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=hang")
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		dir := ""
		sc := bufio.NewScanner(stdout)
		for dir == "" && sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "binDir="); ok {
				dir = d
			}
		}
		if dir == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the child never named its folder")
		}
		cmd.Process.Signal(sig)
		go func() {
			for sc.Scan() {
			}
		}()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(testkit.Bound(30 * time.Second)):
			cmd.Process.Kill()
			<-done
			t.Fatalf("%v: the child did not exit", sig)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			os.RemoveAll(dir)
			t.Errorf("%v: %s left behind (%v)", sig, dir, err)
		}
	}
}

// Folders left by test binaries that died (SIGKILL, a panic, go test's -timeout) are removed by the next
// run: this user's, when their test binary is gone, or when they are older than an hour and name none.
// Others' folders, live ones and other names stay.
func TestRemoveStaleE2EFolders(t *testing.T) {
	tmp := t.TempDir()
	now := time.Now()
	mk := func(name, pid string, age time.Duration) string {
		p := filepath.Join(tmp, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if pid != "" {
			os.WriteFile(filepath.Join(p, "pid"), []byte(pid), 0o644)
		}
		os.WriteFile(filepath.Join(p, "stopproof"), make([]byte, 1024), 0o755)
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPid := strconv.Itoa(dead.Process.Pid) // exited and reaped
	gone := []string{
		mk(e2ePrefix+"old", "", 2*time.Hour),
		mk(e2ePrefix+"dead", deadPid, time.Minute),
	}
	kept := []string{
		mk(e2ePrefix+"fresh", "", 10*time.Minute),                    // maybe a test binary that has not written its pid yet
		mk(e2ePrefix+"live", strconv.Itoa(os.Getpid()), 3*time.Hour), // in use, however old
		mk("stopproof-sim-old", "", 2*time.Hour),                     // not ours to judge
	}
	removed := removeStale(tmp, now)
	for _, p := range gone {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s not removed", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if len(removed) != len(gone) {
		t.Errorf("reported %v", removed)
	}
}
