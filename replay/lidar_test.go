package replay

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/coind6"
	"github.com/rosorin/rosorin/sim"
)

// lidarPackets returns what the sim's LiDAR sends standing still in the default room, one revolution every
// period seconds, starting mid-revolution as a real capture does: each packet's bytes and send time (s).
func lidarPackets(t testing.TB, revs int, period float64) ([][]byte, []float64) {
	t.Helper()
	w := sim.PacketWriter{Model: sim.NewLidarModel(3, sim.DefaultRoom())}
	per := period / (sim.LidarPacketsPerRev + 1)
	var bs [][]byte
	var ts []float64
	for step := 5; step < revs*(sim.LidarPacketsPerRev+1); step++ {
		b, err := w.Append(nil, step%(sim.LidarPacketsPerRev+1), sim.DefaultRoom().Start)
		if err != nil {
			t.Fatal(err)
		}
		bs, ts = append(bs, b), append(ts, float64(step+1)*per)
	}
	return bs, ts
}

var lidarEpoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// lidarMCAP records the packets on LidarTopic, one message each at its send time, none in [skipFrom, skipTo).
func lidarMCAP(t testing.TB, bs [][]byte, ts []float64, skipFrom, skipTo float64) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lidar.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.RawChannel(LidarTopic, "lidar")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bs {
		if ts[i] >= skipFrom && ts[i] < skipTo {
			continue
		}
		if err := r.Write(ch, lidarEpoch.Add(time.Duration(ts[i]*1e9)), b); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Each revolution is stamped by the log time of the packet that completed it: steps of the recorded 0.11 s
// period, one jump across a 0.7 s silence (a break: the revolution under way is dropped), none before the
// first complete revolution or after the last.
func TestLidarScansTimedByLogTime(t *testing.T) {
	const period = 0.11
	bs, ts := lidarPackets(t, 20, period)
	file := lidarMCAP(t, bs, ts, 0.8, 1.5)
	var stamps []time.Time
	res, err := LidarScans(bytes.NewReader(file), func(s coind6.Scan) error {
		if s.ValidCount() < 200 {
			t.Errorf("scan at %v: %d valid bins", s.Stamp, s.ValidCount())
		}
		stamps = append(stamps, s.Stamp)
		return nil
	})
	if err != nil || res.Cut != nil || res.Breaks != 1 || res.Revolutions != len(stamps) {
		t.Fatalf("%+v %v (%d scans)", res, err, len(stamps))
	}
	if len(stamps) < 11 || len(stamps) > 17 {
		t.Fatalf("%d scans", len(stamps))
	}
	jumps := 0
	for k := 1; k < len(stamps); k++ {
		switch dt := stamps[k].Sub(stamps[k-1]).Seconds(); {
		case dt > 0.6:
			jumps++
		case math.Abs(dt-period) > 1e-6:
			t.Errorf("scan %d: %.4f s after the one before, want %.2f", k, dt, period)
		}
	}
	if jumps != 1 {
		t.Errorf("%d jumps, want 1 (the silence)", jumps)
	}
	// fn's error ends the read and comes back.
	stop := errors.New("enough")
	if res, err := LidarScans(bytes.NewReader(file), func(coind6.Scan) error { return stop }); !errors.Is(err, stop) || res.Revolutions != 1 {
		t.Errorf("%+v %v", res, err)
	}
}

// A raw capture has no times: revolution k at k x 0.1 s from the Unix epoch, the partial first one dropped.
func TestLidarScansRaw(t *testing.T) {
	bs, _ := lidarPackets(t, 8, 0.1)
	var stamps []time.Time
	if err := LidarScansRaw(bytes.NewReader(bytes.Join(bs, nil)), func(s coind6.Scan) error {
		stamps = append(stamps, s.Stamp)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(stamps) != 6 {
		t.Fatalf("%d scans, want 6", len(stamps))
	}
	for k, s := range stamps {
		if want := time.Unix(0, 0).Add(time.Duration(k) * RawRevPeriod); !s.Equal(want) {
			t.Errorf("scan %d at %v, want %v", k, s, want)
		}
	}
}

// A capture without a LiDAR channel, or cut before it, is an error that says so.
func TestLidarScansWithoutTheChannel(t *testing.T) {
	path, _ := synthetic(t, 5) // a board capture
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LidarScans(bytes.NewReader(b), func(coind6.Scan) error { return nil }); err == nil || !bytes.Contains([]byte(err.Error()), []byte("no raw LiDAR channel")) {
		t.Errorf("board capture: %v", err)
	}
	bs, ts := lidarPackets(t, 3, 0.1)
	file := lidarMCAP(t, bs, ts, 0, 0)
	if _, err := LidarScans(bytes.NewReader(file[:20]), func(coind6.Scan) error { return nil }); err == nil || !bytes.Contains([]byte(err.Error()), []byte("before a raw LiDAR channel")) {
		t.Errorf("cut before the channel: %v", err)
	}
}

// FuzzLidarScans: whatever the bytes, LidarScans returns (scans, an error or a cut) and never panics.
func FuzzLidarScans(f *testing.F) {
	bs, ts := lidarPackets(f, 4, 0.1)
	b := lidarMCAP(f, bs, ts, 0, 0)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = LidarScans(bytes.NewReader(b), func(coind6.Scan) error { return nil })
	})
}

// A reader that stalled 0.25 s reads two revolutions' worth and more in one chunk: each revolution is stamped
// by its ring-start packet's place in the chunk (the chunk's log time less the line time of the bytes after
// that packet), so the stamps keep increasing, about one period apart, where the chunk's time alone gave the
// two revolutions one stamp (and the odometry refused the second: scanmatch.ErrStamp).
func TestLidarScansOneChunkTwoRevolutions(t *testing.T) {
	const period = 0.1
	bs, ts := lidarPackets(t, 12, period)
	path := filepath.Join(t.TempDir(), "stall.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.RawChannel(LidarTopic, "lidar")
	if err != nil {
		t.Fatal(err)
	}
	var stall []byte
	for i, b := range bs {
		if ts[i] >= 0.5 && ts[i] < 0.75 { // held back by the stalled reader, read with the packet at 0.75 s
			stall = append(stall, b...)
			continue
		}
		if err := r.Write(ch, lidarEpoch.Add(time.Duration(ts[i]*1e9)), append(stall, b...)); err != nil {
			t.Fatal(err)
		}
		stall = nil
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stamps []time.Time
	if _, err := LidarScans(f, func(s coind6.Scan) error { stamps = append(stamps, s.Stamp); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(stamps) < 9 {
		t.Fatalf("%d scans", len(stamps))
	}
	for k := 1; k < len(stamps); k++ {
		dt := stamps[k].Sub(stamps[k-1]).Seconds()
		// A ring start read in the stall is backdated by the line time of what followed it, which is shorter
		// than its real wait (the sim sends at 0.1 s a revolution, far below the line rate): at least 1 ms apart.
		if !(dt > 0.001) || dt > 0.2 {
			t.Errorf("scan %d: %.4f s after the one before, want more than 1 ms, at most 0.2 s", k, dt)
		}
	}
}
