package replay_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
)

// base is a real `rosorin-base run` on the given board and LiDAR devices, with the default parameters and its
// socket and state in the test's folder.
type base struct {
	client *api.Client
	cmd    *exec.Cmd
	log    *testkit.LockedBuffer
	waited chan error
	once   sync.Once
}

// startBase starts bin (rosorin-base) in dir. The caller defers stop (the test's cleanup stops it too, and
// shows its log if the test failed).
func startBase(t *testing.T, bin, dir, device, lidar string) *base {
	t.Helper()
	sock := filepath.Join(dir, "base.sock")
	cfg := filepath.Join(dir, "base.yaml")
	if err := os.WriteFile(cfg, []byte("rosorin_board_driver:\n  ros__parameters: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &base{client: api.NewClient(sock), log: &testkit.LockedBuffer{}, waited: make(chan error, 1)}
	b.cmd = exec.Command(bin, "run", "--device", device, "--lidar", lidar, "--socket", sock, "--config", cfg,
		"--state-dir", filepath.Join(dir, "state"))
	b.cmd.Stdout, b.cmd.Stderr = b.log, b.log
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { b.waited <- b.cmd.Wait() }()
	t.Cleanup(func() {
		b.stop()
		if t.Failed() {
			t.Logf("rosorin-base log:\n%s", b.log.String())
		}
	})
	return b
}

// stop interrupts the driver (its stop path runs) and kills it if it is not gone within 5 s. Later calls do
// nothing.
func (b *base) stop() {
	b.once.Do(func() {
		_ = b.cmd.Process.Signal(os.Interrupt)
		select {
		case <-b.waited:
		case <-time.After(5 * time.Second):
			_ = b.cmd.Process.Kill()
			<-b.waited
		}
	})
}

// waitState polls the driver's state until ready accepts it (within 15 s, widened under -race) and fails the
// test naming what with ready's last complaint otherwise.
func (b *base) waitState(t *testing.T, what string, ready func(api.State) error) api.State {
	t.Helper()
	var st api.State
	err := testkit.Eventually(testkit.Bound(15*time.Second), func() error {
		c, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var err error
		if st, err = b.client.State(c); err != nil {
			return err
		}
		return ready(st)
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return st
}
