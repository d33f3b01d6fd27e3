//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// The take-over path end to end, on the stand and on the floor, and its negative control: --sim-param
// priority_manual=5 starts the real driver with the operator's input below autonomous (10), so arbitration
// keeps the lower priority winning; no test code in the driver.

func TestProveSimTakeOver(t *testing.T) {
	testkit.SkipShort(t, "the stand's take-over path end to end (about 20 s)")
	ev := t.TempDir()
	js := filepath.Join(ev, "proof.json")
	out, code := stopproof(t, 3*time.Minute, "prove", "--sim", "takeover", "--spin", "2s", "--hold", "3s",
		"--evidence-dir", ev, "--json", js)
	if code != 0 || !strings.Contains(out, "RESULT: 2/2 passed") {
		t.Fatalf("exit %d, want 0 and RESULT: 2/2 passed", code)
	}
	assertTornDown(t, simDir(t, out))
	for _, want := range []string{"manual take-over, fwd 0.35", "operator let go: autonomous resumed",
		"| let go (autonomous resumed) |", "turning again ", " s after letting go", "end state: {enabled: false, estop: none"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Results []struct {
			Release bool     `json:"release"`
			StopS   *float64 `json:"stop_s"`
			Notes   []string `json:"notes"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Results) != 2 || rec.Results[0].Release || !rec.Results[1].Release {
		t.Fatalf("results %+v, want the stop line and the release line", rec.Results)
	}
	// The wheels stop as for an e-stop (the manual command wins at its first arrival, the ramp lets speed
	// fall at once); the release check looks at the last second of IMU from 1.2 s after letting go.
	if s := rec.Results[0].StopS; s == nil || *s > 1.0 {
		t.Errorf("take-over still from %v s, want within 1 s", s)
	}
	if s := rec.Results[1].StopS; s == nil || *s < 1.2 || *s > 3 {
		t.Errorf("released %v s after letting go, want 1.2-3 s", s)
	}
	// The driver's state record says who drove: manual after the trigger, autonomous after letting go.
	notes := strings.Join(append(rec.Results[0].Notes, rec.Results[1].Notes...), "\n")
	for _, want := range []string{"the driver's source was manual ", "the driver's source was autonomous "} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// The negative control: manual below autonomous, the take-over never takes the wheels, both lines FAIL.
func TestProveSimTakeOverBrokenArbitrationFails(t *testing.T) {
	testkit.SkipShort(t, "the take-over's negative control end to end (about 20 s)")
	out, code := stopproof(t, 3*time.Minute, "prove", "--sim", "--sim-param", "priority_manual=5", "takeover",
		"--spin", "2s", "--hold", "3s", "--evidence-dir", t.TempDir())
	if code != 1 || !strings.Contains(out, "RESULT: 0/2 passed") {
		t.Fatalf("exit %d, want 1 and RESULT: 0/2 passed", code)
	}
	for _, want := range []string{"fault: driver parameters priority_manual=5 (--sim-param)", "NEVER settled",
		"not judged: the wheels were never shown to stop"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	assertTornDown(t, simDir(t, out))
}

// The floor's take-over: stopped by the manual input's zero, then measured moving again once it lets go; and
// with manual below autonomous the robot keeps driving and the proof stops itself.
func TestFloorProveSimTakeOver(t *testing.T) {
	testkit.SkipShort(t, "the floor's take-over path and its negative control end to end (about 40 s)")
	ev := t.TempDir()
	js := filepath.Join(ev, "floor.json")
	out, code := stopproof(t, 3*time.Minute, "floor", "prove", "--sim", "--evidence-dir", ev, "--json", js, "takeover")
	rec := readFloorRecord(t, js)
	if code != 0 || !strings.Contains(out, "RESULT: 2/2 passed") || rec.Passed != 2 || !rec.TeardownOK {
		t.Fatalf("exit %d, passed %d/%d; want 0 and 2/2", code, rec.Passed, rec.Planned)
	}
	for _, want := range []string{"takeover fwd 0.2 before: 0.", "let go, autonomous resumed fwd 0.2: measured moving again ",
		"| manual take-over ", "| let go (autonomous resumed) "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	assertTornDown(t, simDir(t, out))

	out, code = stopproof(t, 3*time.Minute, "floor", "prove", "--sim", "--sim-param", "priority_manual=5",
		"--evidence-dir", t.TempDir(), "takeover")
	if code != 1 {
		t.Errorf("negative control: exit %d, want 1", code)
	}
	for _, want := range []string{"STILL MOVING 0.8 s after the stop", "RESULT: 0/2 passed", "not judged: the robot was never shown to stop"} {
		if !strings.Contains(out, want) {
			t.Errorf("negative control: output lacks %q", want)
		}
	}
	assertTornDown(t, simDir(t, out))
}
