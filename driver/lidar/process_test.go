package lidar_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/lidar"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/sim"
)

// scanDriver is the driver's side of the socket as far as the reader sees it: it counts scans and streams.
type scanDriver struct {
	mu            sync.Mutex
	scans, opened int
	open          int
}

func (d *scanDriver) CmdVel(api.Peer, motion.Input, api.Twist, bool) (api.CmdReply, error) {
	return api.CmdReply{}, nil
}
func (d *scanDriver) BadCommand(api.Peer, motion.Input, string) {}
func (d *scanDriver) CmdStream(api.Peer, motion.Input, bool)    {}
func (d *scanDriver) EStop(api.Peer, string) api.Reply          { return api.Reply{} }
func (d *scanDriver) Enable(api.Peer, bool) api.Reply           { return api.Reply{} }
func (d *scanDriver) Reset(api.Peer) api.Reply                  { return api.Reply{} }
func (d *scanDriver) State() (api.State, error)                 { return api.State{}, nil }
func (d *scanDriver) Config() any                               { return nil }

func (d *scanDriver) Scan(api.Peer, *api.Scan, bool) {
	d.mu.Lock()
	d.scans++
	d.mu.Unlock()
}

func (d *scanDriver) ScanStream(_ api.Peer, open bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if open {
		d.opened++
		d.open++
	} else {
		d.open--
	}
}

func (d *scanDriver) counts() (scans, opened, open int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.scans, d.opened, d.open
}

// TestProcessStopsOnSIGTERM: the reader process on the simulated LiDAR delivers scans to the socket, and a
// real SIGTERM to this process (what the supervisor sends) ends it cleanly: nil, its scan stream closed.
func TestProcessStopsOnSIGTERM(t *testing.T) {
	if name, err := os.ReadFile("/proc/self/comm"); err == nil { // RunProcess names the process
		t.Cleanup(func() { childproc.SetProcName(strings.TrimSpace(string(name))) })
	}
	dir, err := os.MkdirTemp("", "rlid") // short: unix socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s, err := sim.Start(context.Background(), sim.Config{Dir: dir, World: "stand", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sock := filepath.Join(dir, "base.sock")
	d := &scanDriver{}
	srv, err := api.Listen(sock, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var logBuf testkit.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- lidar.RunProcess(context.Background(), lidar.ProcessConfig{Device: s.LidarPath(), Socket: sock,
			Log: slog.New(slog.NewTextHandler(&logBuf, nil))})
	}()
	if err := testkit.Eventually(testkit.Bound(5*time.Second), func() error {
		if n, _, _ := d.counts(); n < 5 {
			return errors.New("fewer than 5 scans delivered")
		}
		return nil
	}); err != nil {
		t.Fatalf("%v; log:\n%s", err, logBuf.String())
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after SIGTERM: %v, want nil", err)
		}
	case <-time.After(testkit.Bound(3 * time.Second)):
		t.Fatalf("the reader process still runs 3 s after SIGTERM; log:\n%s", logBuf.String())
	}
	if err := testkit.Eventually(testkit.Bound(time.Second), func() error {
		if _, opened, open := d.counts(); opened == 0 || open != 0 {
			return errors.New("the scan stream is still open")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if l := logBuf.String(); !strings.Contains(l, "LiDAR reader stopped") {
		t.Errorf("log %q: no stop line", l)
	}
}

// TestProcessRefusesABadConfig: a parameter file of the wrong type ends the process with its error at
// once, before the device is opened.
func TestProcessRefusesABadConfig(t *testing.T) {
	if name, err := os.ReadFile("/proc/self/comm"); err == nil {
		t.Cleanup(func() { childproc.SetProcName(strings.TrimSpace(string(name))) })
	}
	cfg := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(cfg, []byte("rosorin_board_driver:\n  ros__parameters:\n    clockwise: maybe\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := lidar.RunProcess(context.Background(), lidar.ProcessConfig{Device: "/nonexistent", Socket: "/nonexistent.sock", Configs: []string{cfg}})
	if err == nil || !strings.Contains(err.Error(), "clockwise") {
		t.Fatalf("RunProcess with a bad config: %v", err)
	}
}
