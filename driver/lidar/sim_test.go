// Real-time tests against the simulated COIN-D6 (sim.Start). Under -race the waits and the tolerances above
// a period are widened (testkit.Bound); the lower bounds (a reopen not before 2 s of silence) are not.
package lidar_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/lidar"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/serialport"
	"github.com/rosorin/rosorin/sim"
)

type delivered struct {
	at   time.Time
	scan coind6.Scan
}

type sink struct {
	mu    sync.Mutex
	scans []delivered
}

func (s *sink) deliver(sc coind6.Scan) {
	s.mu.Lock()
	s.scans = append(s.scans, delivered{time.Now(), sc})
	s.mu.Unlock()
}

func (s *sink) since(t time.Time) []delivered {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []delivered
	for _, d := range s.scans {
		if d.at.After(t) {
			out = append(out, d)
		}
	}
	return out
}

// waitScans waits until n scans arrived after t; it returns the time of the n-th.
func (s *sink) waitScans(t time.Time, n int, timeout time.Duration) (time.Time, bool) {
	var at time.Time
	err := testkit.Eventually(timeout, func() error {
		d := s.since(t)
		if len(d) < n {
			return fmt.Errorf("%d of %d scans", len(d), n)
		}
		at = d[n-1].at
		return nil
	})
	return at, err == nil
}

func startReader(t *testing.T) (*sim.Sim, *lidar.Reader, *sink) {
	t.Helper()
	s, err := sim.Start(context.Background(), sim.Config{Dir: t.TempDir(), World: "stand", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := lidar.New(lidar.Config{Device: s.LidarPath()})
	k := &sink{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, k.deliver) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(testkit.Bound(2 * time.Second)):
			t.Error("Run did not return within 2 s of the cancel")
		}
		s.Close()
	})
	return s, r, k
}

// TestScansFromSim: 400-bin scans at about 10 Hz, stamped with their first ray (one revolution before they
// are delivered), with the room's share of valid bins.
func TestScansFromSim(t *testing.T) {
	_, r, k := startReader(t)
	t0 := time.Now()
	if _, ok := k.waitScans(t0, 12, testkit.Bound(3*time.Second)); !ok {
		t.Fatalf("fewer than 12 scans in 3 s: %+v", r.Stats())
	}
	ds := k.since(t0)
	for i, d := range ds[1:] {
		sc := d.scan
		if len(sc.Ranges) != 400 {
			t.Fatalf("scan %d has %d bins", i, len(sc.Ranges))
		}
		if st := sc.ScanTime; st < 80*time.Millisecond || st > 120*time.Millisecond {
			t.Errorf("scan %d: scan time %v, want about 100 ms", i, st)
		}
		// Delivered when the next revolution starts: the first ray is one revolution older.
		if age := d.at.Sub(sc.Stamp); age < sc.ScanTime || age > sc.ScanTime+testkit.Bound(30*time.Millisecond) {
			t.Errorf("scan %d: delivered %v after its stamp, scan time %v: not stamped with the first ray", i, age, sc.ScanTime)
		}
		if f := sc.ValidFraction(); f < 0.45 || f > 0.75 {
			t.Errorf("scan %d: valid fraction %.2f, want about 0.61", i, f)
		}
	}
	st := r.Stats()
	if st.Parser.BadChecksum != 0 || st.DecodeErrors != 0 {
		t.Errorf("clean stream gave errors: %+v", st)
	}
}

// TestClockwiseFlip: the sim's native angles run clockwise. With Clockwise (the robot's setting) scan bin i holds
// the room's range at native angle -i*0.9 deg, as the sim's noise-free model predicts; without the flip the
// same comparison fails (the negative control: the check can tell).
func TestClockwiseFlip(t *testing.T) {
	s, err := sim.Start(context.Background(), sim.Config{Dir: t.TempDir(), World: "stand", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	model := sim.NewLidarModel(1, sim.DefaultRoom())
	pose := s.Truth().Pose
	for _, cw := range []bool{true, false} {
		cfg := coind6.DefaultScanConfig()
		cfg.Clockwise = cw
		r := lidar.New(lidar.Config{Device: s.LidarPath(), Scan: cfg})
		k := &sink{}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx, k.deliver) }()
		_, ok := k.waitScans(time.Time{}, 3, testkit.Bound(3*time.Second))
		cancel()
		<-done
		if !ok {
			t.Fatal("no scans")
		}
		sc := k.since(time.Time{})[2].scan
		// Fraction of valid bins within 5 cm of the model at native = -ROS angle.
		near, n := 0, 0
		for i := range sc.Ranges {
			if !sc.IsValid(i) {
				continue
			}
			native := 360 - float64(i)*0.9 // the robot's convention: ROS angle = -native
			want, ok := model.Expected(pose, native)
			if !ok {
				continue
			}
			n++
			if math.Abs(float64(sc.Ranges[i])-want) < 0.05 {
				near++
			}
		}
		frac := float64(near) / float64(max(n, 1))
		t.Logf("clockwise=%v: %d of %d comparable bins within 5 cm of the model (%.2f)", cw, near, n, frac)
		if cw && frac < 0.95 {
			t.Errorf("clockwise scan matches the model in only %.2f of the bins", frac)
		}
		if !cw && frac > 0.8 { // the default room is nearly mirror-symmetric about the robot's x axis: 0.63 measured
			t.Errorf("negative control: the unflipped scan matches the model in %.2f of the bins; the check cannot tell", frac)
		}
	}
}

// TestReopenAfterUnplug: the device vanishes for 2 s and a new one appears at the same path: the reader
// reopens by itself and scans resume.
func TestReopenAfterUnplug(t *testing.T) {
	s, r, k := startReader(t)
	if _, ok := k.waitScans(time.Time{}, 3, testkit.Bound(3*time.Second)); !ok {
		t.Fatal("no scans before the unplug")
	}
	t0 := time.Now()
	if err := s.LidarUnplug(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	at, ok := k.waitScans(t0.Add(2*time.Second), 3, testkit.Bound(4*time.Second))
	if !ok {
		t.Fatalf("scans did not resume within 6 s of a 2 s unplug: %+v", r.Stats())
	}
	if r.Stats().Reopens < 1 {
		t.Errorf("no reopen counted: %+v", r.Stats())
	}
	t.Logf("LiDAR unplug 2 s: third scan after the return %.2f s after the unplug", at.Sub(t0).Seconds())
}

// TestReopenAfterSilence: bytes stop with the port still open: after 2 s the reader reopens (a dead
// descriptor never wakes up by itself, chapter 14); when bytes come back, scans resume.
func TestReopenAfterSilence(t *testing.T) {
	s, r, k := startReader(t)
	if _, ok := k.waitScans(time.Time{}, 3, testkit.Bound(3*time.Second)); !ok {
		t.Fatal("no scans before the silence")
	}
	before := r.Stats().Reopens
	t0 := time.Now()
	if err := s.LidarSilent(true); err != nil {
		t.Fatal(err)
	}
	_ = testkit.Eventually(testkit.Bound(4*time.Second), func() error {
		if r.Stats().Reopens == before {
			return errors.New("no reopen")
		}
		return nil
	})
	el := time.Since(t0)
	if r.Stats().Reopens == before {
		t.Fatalf("no reopen within 4 s of silence")
	}
	if el < 1900*time.Millisecond || el > 1900*time.Millisecond+testkit.Bound(1300*time.Millisecond) {
		t.Errorf("reopen %.2f s after the silence began, want 2 s + one 0.5 s retry", el.Seconds())
	}
	t1 := time.Now()
	if err := s.LidarSilent(false); err != nil {
		t.Fatal(err)
	}
	if _, ok := k.waitScans(t1, 2, testkit.Bound(2*time.Second)); !ok {
		t.Fatal("scans did not resume after the silence ended")
	}
	t.Logf("silence: reopened %.2f s after the last byte", el.Seconds())
}

// TestExclusiveLidar: while the reader holds the LiDAR, a second exclusive open is refused (flock, which root
// does not bypass) and names the holder.
func TestExclusiveLidar(t *testing.T) {
	s, _, k := startReader(t)
	if _, ok := k.waitScans(time.Time{}, 1, testkit.Bound(3*time.Second)); !ok {
		t.Fatal("no scans")
	}
	f, err := serialport.OpenLidar(s.LidarPath())
	if err == nil {
		f.Close()
		t.Fatal("second exclusive open of the LiDAR succeeded")
	}
	if !serialport.IsBusy(err) {
		t.Fatalf("second open: %v, want a busy error", err)
	}
}
