package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/board"
)

// TestCutFilesNeverCrash cuts a small unfinished recording at every byte offset and runs info, decode and
// recover on each piece: exit 0 with a partial result, or exit 1 with a message; never a panic.
func TestCutFilesNeverCrash(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "small.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{NoFinish: true, Metadata: map[string]string{"device": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.RawChannel("/serial/board/rx", "board")
	if err != nil {
		t.Fatal(err)
	}
	frame := board.EncodeIMU(board.IMU{Gyro: [3]float32{1, 2, 3}})
	t0 := time.Unix(1_700_000_000, 0)
	for i := 0; i < 12; i++ {
		if err := r.Write(ch, t0.Add(time.Duration(i)*10*time.Millisecond), frame); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(r.PartPath())
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.mcap.part")
	fixed := filepath.Join(dir, "fixed.mcap")
	exits := map[int]int{}
	for n := 0; n <= len(data); n++ {
		if err := os.WriteFile(cut, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(fixed)
		for _, args := range [][]string{{"info", cut}, {"decode", cut}, {"recover", cut, fixed}} {
			_, stderr, code := runCmd(t, nil, args...)
			if code != 0 && (code != 1 || len(stderr) == 0) {
				t.Fatalf("cut at %d: %v: exit %d, stderr %q", n, args, code, stderr)
			}
			exits[code]++
		}
		if n >= 8 { // a file holding at least the magic is always recoverable
			stdout, _, code := runCmd(t, nil, "info", fixed)
			if code != 0 || !strings.Contains(string(stdout), "ended:     ") {
				t.Fatalf("cut at %d: info on the recovered file: exit %d\n%s", n, code, stdout)
			}
		}
	}
	stdout, _, _ := runCmd(t, nil, "info", cut)
	if !strings.Contains(string(stdout), "ended:     closed") || !strings.Contains(string(stdout), "12 msgs") ||
		!strings.Contains(string(stdout), "12 frames     109.1/s      0 bad checksum") || !strings.Contains(string(stdout), "imu 12") {
		t.Fatalf("the whole .part file:\n%s", stdout)
	}
	t.Logf("%d cuts of a %d-byte file; exit codes %v", len(data)+1, len(data), exits)
}
