package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/replay"
	"github.com/rosorin/rosorin/sim"
)

// timedPacket is one encoded COIN-D6 packet and the time (s) the sim sends it.
type timedPacket struct {
	t float64
	b []byte
}

// simPackets returns what the sim's LiDAR sends while the robot follows pose(t), one revolution every
// period seconds: the sim's packets (sim.LidarModel.Packet, 17 per revolution, each from the pose when it is
// sent, as sim/core.go paces them), encoded by protocol/coind6, starting mid-revolution as a real capture
// does.
func simPackets(t testing.TB, seed int64, revs int, period float64, pose func(t float64) [3]float64) []timedPacket {
	t.Helper()
	w := sim.PacketWriter{Model: sim.NewLidarModel(seed, sim.DefaultRoom())}
	per := period / (sim.LidarPacketsPerRev + 1)
	var out []timedPacket
	for step := 5; step < revs*(sim.LidarPacketsPerRev+1); step++ {
		tm := float64(step+1) * per
		b, err := w.Append(nil, step%(sim.LidarPacketsPerRev+1), pose(tm))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, timedPacket{tm, b})
	}
	return out
}

// simCapture writes what `timeout N cat /dev/lidar` would record of the sim's LiDAR (simPackets at 10 Hz).
func simCapture(t *testing.T, seed int64, revs int, pose func(t float64) [3]float64) string {
	t.Helper()
	var out []byte
	for _, p := range simPackets(t, seed, revs, 0.1, pose) {
		out = append(out, p.b...)
	}
	path := filepath.Join(t.TempDir(), "lidar.bin")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOdomStrafe: a capture of the sim's LiDAR while the robot strafes left at 0.1 m/s reads, per
// revolution, t in 0.1 s steps from 0 and the base's sideways motion within 3 mm of the truth (the issue's
// strafe target), with x and yaw near zero and nothing degenerate in the sim's room.
func TestOdomStrafe(t *testing.T) {
	start := sim.DefaultRoom().Start
	path := simCapture(t, 5, 22, func(tm float64) [3]float64 { return [3]float64{start[0], start[1] + 0.1*tm, start[2]} })
	stdout, stderr, code := runCmd(t, nil, "odom", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var lines []replay.OdomLine
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		var l replay.OdomLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	// 22 revolutions, the first one partial (the capture starts mid-revolution: dropped), the last one open.
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20:\n%s", len(lines), stdout)
	}
	for k, l := range lines {
		if l.Error != "" || l.X == nil || *l.Degenerate || l.Valid < 200 {
			t.Fatalf("line %d: %+v", k, l)
		}
		if math.Abs(l.T-0.1*float64(k)) > 1e-6 {
			t.Errorf("line %d: t %.6f, want %.1f", k, l.T, 0.1*float64(k))
		}
	}
	last := lines[len(lines)-1]
	want := 0.1 * last.T
	t.Logf("after %.1f s: x %.2f mm, y %.2f mm (truth %.2f mm), yaw %.3f deg, valid %d", last.T, 1e3**last.X, 1e3**last.Y,
		1e3*want, *last.Yaw*180/math.Pi, last.Valid)
	if math.Abs(*last.Y-want) > 0.003 || math.Abs(*last.X) > 0.003 || math.Abs(*last.Yaw) > 0.2*math.Pi/180 {
		t.Errorf("last pose (%.4f, %.4f, %.4f), want (0, %.4f, 0) within 3 mm and 0.2 deg", *last.X, *last.Y, *last.Yaw, want)
	}
}

// TestOdomGarbage: bytes that hold no LiDAR packet print nothing and exit 0; a missing file exits 1.
func TestOdomGarbage(t *testing.T) {
	stdout, _, code := runCmd(t, bytes.NewReader(bytes.Repeat([]byte{0xAA, 0x55, 0x13}, 500)), "odom", "-")
	if code != 0 || len(stdout) != 0 {
		t.Errorf("garbage: exit %d, output %q", code, stdout)
	}
	if _, _, code := runCmd(t, nil, "odom", filepath.Join(t.TempDir(), "missing.bin")); code != 1 {
		t.Errorf("missing file: exit %d, want 1", code)
	}
}

// odomLines parses odom's output.
func odomLines(t *testing.T, stdout []byte) []replay.OdomLine {
	t.Helper()
	var lines []replay.OdomLine
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		var l replay.OdomLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

var mcapEpoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// writeLidarMCAP records pkts on /serial/lidar/rx through capture/mcapfile as `capture record --kind lidar`
// does: one message per read, a read holding one to three packets (in turn) with the log time of its last
// packet plus 0.4 ms, and no message for packets sent in [skipFrom, skipTo) s (a silence). finish false
// leaves the .part file a SIGKILLed recorder leaves; it returns the file's path.
func writeLidarMCAP(t testing.TB, pkts []timedPacket, skipFrom, skipTo float64, finish bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lidar.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{Metadata: map[string]string{"device": "/dev/lidar", "baud": "230400"}, NoFinish: !finish})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.RawChannel("/serial/lidar/rx", "lidar")
	if err != nil {
		t.Fatal(err)
	}
	for i, n := 0, 1; i < len(pkts); i, n = i+n, n%3+1 {
		j := min(i+n, len(pkts))
		var data []byte
		for _, p := range pkts[i:j] {
			data = append(data, p.b...)
		}
		last := pkts[j-1].t
		if last >= skipFrom && last < skipTo {
			continue
		}
		at := mcapEpoch.Add(time.Duration((last + 0.0004) * 1e9))
		if err := r.Write(ch, at, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !finish {
		return r.PartPath()
	}
	return path
}

// TestOdomMCAP: an MCAP recording of the sim's LiDAR turning at 9.1 Hz (0.11 s per revolution) while the
// robot strafes left at 0.1 m/s, with a 0.7 s silence in the recording, reads each revolution at its
// recorded time (steps of 0.11 s, not the raw input's 0.1 s, and the silence as a jump), reports the break
// on standard error, and ends within 3 mm of the truth at the last revolution's time.
func TestOdomMCAP(t *testing.T) {
	start := sim.DefaultRoom().Start
	const period, v = 0.11, 0.1
	pose := func(tm float64) [3]float64 { return [3]float64{start[0], start[1] + v*tm, start[2]} }
	path := writeLidarMCAP(t, simPackets(t, 6, 30, period, pose), 1.3, 2.0, true)
	stdout, stderr, code := runCmd(t, nil, "odom", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !bytes.Contains(stderr, []byte("1 breaks in the LiDAR channel")) {
		t.Errorf("stderr %q does not report the silence", stderr)
	}
	lines := odomLines(t, stdout)
	// 30 revolutions: the first partial, the last open, the one across the silence and the one the
	// silence's first chunk closed dropped or cut short: at least 20 lines.
	if len(lines) < 20 || len(lines) > 28 {
		t.Fatalf("%d lines:\n%s", len(lines), stdout)
	}
	jumps := 0
	for k, l := range lines {
		if l.Error != "" || l.X == nil || *l.Degenerate || l.Valid < 200 {
			t.Fatalf("line %d: %+v", k, l)
		}
		if k == 0 {
			continue
		}
		switch dt := l.T - lines[k-1].T; {
		case dt > 0.6:
			jumps++
		case math.Abs(dt-period) > 0.012: // a read holds up to three packets: its log time is up to 13 ms late
			t.Errorf("line %d: t %.4f after %.4f, want a step of %.2f s", k, l.T, lines[k-1].T, period)
		}
	}
	if jumps != 1 {
		t.Errorf("%d jumps over 0.6 s in t, want 1 (the silence)", jumps)
	}
	last := lines[len(lines)-1]
	want := v * last.T
	t.Logf("%d lines, after %.2f s: x %.2f mm, y %.2f mm (truth %.2f mm), yaw %.3f deg", len(lines), last.T, 1e3**last.X,
		1e3**last.Y, 1e3*want, *last.Yaw*180/math.Pi)
	if math.Abs(*last.Y-want) > 0.003 || math.Abs(*last.X) > 0.003 || math.Abs(*last.Yaw) > 0.2*math.Pi/180 {
		t.Errorf("last pose (%.4f, %.4f, %.4f), want (0, %.4f, 0) within 3 mm and 0.2 deg", *last.X, *last.Y, *last.Yaw, want)
	}
}

// TestOdomMCAPCut: the .part file a recorder leaves, cut at offsets through the file (inside the magic, the
// header, the channel, a message, and near the end), never crashes odom: before the LiDAR channel it exits 1
// saying there is nothing to read; after it, exit 0, the lines are the first lines of the whole file's
// output, and standard error says where the file is cut.
func TestOdomMCAPCut(t *testing.T) {
	start := sim.DefaultRoom().Start
	pose := func(tm float64) [3]float64 { return [3]float64{start[0] + 0.2*tm, start[1], start[2]} }
	part := writeLidarMCAP(t, simPackets(t, 7, 16, 0.1, pose), 0, 0, false)
	whole, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	full, stderr, code := runCmd(t, nil, "odom", part)
	if code != 0 || len(odomLines(t, full)) < 12 || len(stderr) != 0 {
		t.Fatalf("uncut .part: exit %d, %d lines, stderr %s", code, len(odomLines(t, full)), stderr)
	}
	// The channel record: a cut before its end leaves nothing to read (exit 1, said so), from it on the
	// lines read so far.
	// Where the channel record ends: the shortest cut whose linear read (mcapfile.Read) hands it out.
	n := len(whole)
	chanEnd := sort.Search(n, func(at int) bool {
		seen := false
		_, _ = mcapfile.Read(bytes.NewReader(whole[:at]), mcapfile.Visitor{Channel: func(c *mcap.Channel) error {
			seen = seen || c.Topic == "/serial/lidar/rx"
			return nil
		}})
		return seen
	})
	offsets := []int{0, 3, 8, 40, chanEnd - 1, chanEnd + 30, n / 4, n / 2, n/2 + 7, 3 * n / 4, n - 9, n - 1}
	for at := 1; at < n; at += 331 { // and every 331st byte: 85 more cuts, anywhere in a record
		offsets = append(offsets, at)
	}
	for i, at := range offsets {
		cut := filepath.Join(t.TempDir(), "cut.mcap")
		if err := os.WriteFile(cut, whole[:at], 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, code := runCmd(t, nil, "odom", cut)
		switch {
		case at >= 8 && at < chanEnd:
			if code != 1 || len(out) != 0 || !bytes.Contains(stderr, []byte("before a raw LiDAR channel")) {
				t.Errorf("cut at %d, before the channel: exit %d, stdout %q, stderr %q; want exit 1 and why", at, code, out, stderr)
			}
			if i < 12 {
				t.Logf("cut at %5d of %d: exit 1, %s", at, n, bytes.TrimSpace(stderr))
			}
			continue
		case code != 0:
			t.Errorf("cut at %d of %d: exit %d: %s", at, n, code, stderr)
			continue
		}
		if !bytes.HasPrefix(full, out) {
			t.Errorf("cut at %d: output is not a prefix of the whole file's:\n%s", at, out)
		}
		lines := len(odomLines(t, out))
		if at >= 8 && !bytes.Contains(stderr, []byte("is cut at byte")) {
			t.Errorf("cut at %d: stderr %q does not say the file is cut", at, stderr)
		}
		if at == n/2 && (lines == 0 || lines >= len(odomLines(t, full))) {
			t.Errorf("cut in the middle: %d lines of %d, want a partial result", lines, len(odomLines(t, full)))
		}
		if i < 12 {
			t.Logf("cut at %5d of %d: %2d lines; %s", at, n, lines, bytes.TrimSpace(stderr))
		}
	}
}

// TestOdomMCAPNoLidar: an MCAP capture without a LiDAR channel is an error naming the channels it has.
func TestOdomMCAPNoLidar(t *testing.T) {
	path := filepath.Join(t.TempDir(), "board.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.RawChannel("/serial/board/rx", "board")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Write(ch, mcapEpoch, []byte{0xAA, 0x55, 0x00}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCmd(t, nil, "odom", path)
	if code != 1 || len(stdout) != 0 || !bytes.Contains(stderr, []byte("no raw LiDAR channel")) ||
		!bytes.Contains(stderr, []byte("/serial/board/rx")) {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and an error naming /serial/board/rx", code, stdout, stderr)
	}
}

// FuzzOdomMCAP: whatever the bytes, OdomMCAP returns (lines, an error or a cut) and never panics.
func FuzzOdomMCAP(f *testing.F) {
	start := sim.DefaultRoom().Start
	pose := func(tm float64) [3]float64 { return [3]float64{start[0] + 0.1*tm, start[1], start[2]} }
	for _, finish := range []bool{true, false} {
		b, err := os.ReadFile(writeLidarMCAP(f, simPackets(f, 8, 4, 0.1, pose), 0, 0, finish))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = replay.OdomMCAP(bytes.NewReader(b), io.Discard)
	})
}

// TestOdomSimRecording: the whole chain on real parts. The sim's floor world (sim.Start: its LiDAR behind a
// pty, the robot standing in the default room) is recorded by `capture record --kind lidar` for 2 s, and
// `capture odom` reads the MCAP: every revolution's t comes from the recording (increasing, 0.1 s apart on
// average), and the standing robot reads within 5 mm and 0.3 degree of its first pose, never degenerate.
func TestOdomSimRecording(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := sim.Start(ctx, sim.Config{Dir: dir, World: "floor", Seed: 9})
	if err != nil {
		t.Skipf("no sim here: %v", err)
	}
	defer s.Close()
	out := filepath.Join(dir, "lidar.mcap")
	if _, stderr, code := runCmd(t, nil, "record", "--device", s.LidarPath(), "--kind", "lidar", "--out", out, "--duration", "2s"); code != 0 {
		t.Fatalf("record: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := runCmd(t, nil, "odom", out)
	if code != 0 || len(stderr) != 0 {
		t.Fatalf("odom: exit %d: %s", code, stderr)
	}
	lines := odomLines(t, stdout)
	if len(lines) < 15 {
		t.Fatalf("%d lines from 2 s of recording:\n%s", len(lines), stdout)
	}
	for k, l := range lines {
		if l.Error != "" || l.X == nil || *l.Degenerate {
			t.Fatalf("line %d: %+v", k, l)
		}
		if k > 0 && !(l.T > lines[k-1].T) {
			t.Errorf("line %d: t %.6f not after %.6f", k, l.T, lines[k-1].T)
		}
		if d := math.Hypot(*l.X, *l.Y); d > 0.005 || math.Abs(*l.Yaw) > 0.3*math.Pi/180 {
			t.Errorf("line %d: a standing robot read (%.1f, %.1f) mm, %.2f deg", k, 1e3**l.X, 1e3**l.Y, *l.Yaw*180/math.Pi)
		}
	}
	step := lines[len(lines)-1].T / float64(len(lines)-1)
	t.Logf("%d revolutions, mean step %.4f s, last (%.2f, %.2f) mm", len(lines), step, 1e3**lines[len(lines)-1].X, 1e3**lines[len(lines)-1].Y)
	if math.Abs(step-0.1) > 0.01 {
		t.Errorf("mean step %.4f s between revolutions, want 0.1 s (the sim's 10 Hz, from the recorded times)", step)
	}
}
