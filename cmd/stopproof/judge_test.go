//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

// captures are the committed sim recordings (testdata/captures/README.md).
func captures(t *testing.T, name string) string {
	t.Helper()
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "testdata", "captures", name)
}

// tableOf cuts the stop-path table and the RESULT line out of an output.
func tableOf(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "+---")
	j := strings.Index(out, "RESULT: ")
	if i < 0 || j < i {
		t.Fatalf("no table and RESULT line in:\n%s", out)
	}
	return out[i : j+strings.Index(out[j:], "\n")]
}

// The committed recordings: the passing run re-judges to PASS with the live run's verdicts, the negative
// control (the board ignoring motor frames) to FAIL; the output is the same bytes each time, and it carries
// the live run's result lines and table (the live output is committed beside the recording).
func TestJudgeCaptures(t *testing.T) {
	for _, c := range []struct {
		file, live string
		code       int
		want       string
	}{
		{"stand-sim-pass.mcap", "stand-sim-pass.live.txt", 0, "RESULT: 3/3 passed"},
		{"stand-sim-ignore-motor.mcap", "stand-sim-ignore-motor.live.txt", exitFail, "RESULT: 0/2 passed"},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := captures(t, c.file)
			out1, code := stopproof(t, time.Minute, "judge", path)
			out2, _ := stopproof(t, time.Minute, "judge", path)
			if code != c.code || !strings.Contains(out1, c.want) {
				t.Fatalf("exit %d, want %d and %q", code, c.code, c.want)
			}
			if out1 != out2 {
				t.Errorf("two judges of one file printed different bytes")
			}
			if !strings.Contains(out1, "re-judge: the same verdicts and times as the live run") {
				t.Errorf("the re-judge does not agree with the live run")
			}
			live, err := os.ReadFile(captures(t, c.live))
			if err != nil {
				t.Fatal(err)
			}
			if a, b := tableOf(t, out1), tableOf(t, string(live)); a != b {
				t.Errorf("re-judged table\n%s\nis not the live run's\n%s", a, b)
			}
			for _, l := range resultLines(out1) {
				if !strings.Contains(string(live), l+"\n") {
					t.Errorf("re-judged line %q is not in the live output", l)
				}
			}
			if c.code != 0 && len(resultLines(out1)) == 0 {
				t.Errorf("negative control without FAIL lines")
			}
		})
	}
}

// A live sim run's printed table against the judge of its own recording (made by default, beside the
// evidence log).
func TestJudgeLiveSimRun(t *testing.T) {
	testkit.SkipShort(t, "two live stand runs and a re-judge end to end")
	ev := t.TempDir()
	out, code := stopproof(t, 2*time.Minute, "prove", "--sim", "gamepad", "--spin", "2s", "--hold", "3s", "--evidence-dir", ev)
	if code != 0 {
		t.Fatalf("live run exit %d", code)
	}
	recs, _ := filepath.Glob(filepath.Join(ev, "*.mcap"))
	if len(recs) != 1 || !strings.Contains(out, "recording: "+recs[0]) {
		t.Fatalf("want one recording beside the evidence log, named in the output; have %v", recs)
	}
	jout, jcode := stopproof(t, time.Minute, "judge", recs[0])
	if jcode != 0 || !strings.Contains(jout, "re-judge: the same verdicts and times") {
		t.Fatalf("judge exit %d", jcode)
	}
	if a, b := tableOf(t, jout), tableOf(t, out); a != b {
		t.Errorf("re-judged table\n%s\nlive table\n%s", a, b)
	}
	if a, b := resultLines(jout), resultLines(out); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("re-judged lines %q, live %q", a, b)
	}
	// --no-record leaves no recording.
	ev2 := t.TempDir()
	if _, code := stopproof(t, 2*time.Minute, "prove", "--sim", "gamepad", "--spin", "2s", "--hold", "3s", "--evidence-dir", ev2, "--no-record"); code != 0 {
		t.Fatalf("--no-record run exit %d", code)
	}
	if recs, _ := filepath.Glob(filepath.Join(ev2, "*.mcap*")); len(recs) != 0 {
		t.Errorf("--no-record left %v", recs)
	}
}

// Cut and damaged recordings: a clear message or a partial re-judge, exit 1, 2 or 3, never a crash.
func TestJudgeDamagedFiles(t *testing.T) {
	b, err := os.ReadFile(captures(t, "stand-sim-pass.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	notMCAP := filepath.Join(dir, "not.mcap")
	os.WriteFile(notMCAP, []byte("hello, not a recording\n"), 0o644)
	out, code := stopproof(t, time.Minute, "judge", notMCAP)
	if code != exitAbort || !strings.Contains(out, "not an MCAP file") {
		t.Errorf("a text file: exit %d, want %d and 'not an MCAP file'", code, exitAbort)
	}
	for _, cut := range []int{len(b) / 3, len(b) / 2, len(b) - 100} {
		p := filepath.Join(dir, "cut.mcap")
		os.WriteFile(p, b[:cut], 0o644)
		out, code := stopproof(t, time.Minute, "judge", p)
		// A cut in the data loses lines (exit 1-3); a cut in the summary after the data loses none, and says so.
		if code > exitDiffers || strings.Contains(out, "panic") || strings.Contains(out, "goroutine ") ||
			code == 0 && !strings.Contains(out, "recording cut after byte") {
			t.Errorf("cut at %d of %d: exit %d", cut, len(b), code)
		}
	}
	flipped := bytes.Clone(b)
	for i := 4096; i < len(flipped); i += 4099 {
		flipped[i] ^= 0x5a
	}
	p := filepath.Join(dir, "flipped.mcap")
	os.WriteFile(p, flipped, 0o644)
	if out, code := stopproof(t, time.Minute, "judge", p); code == 0 || strings.Contains(out, "panic") {
		t.Errorf("flipped bytes: exit %d", code)
	}
}

// The scan-gate check records its judge's input; judge re-judges it to the same verdict.
func TestJudgeScangateRecording(t *testing.T) {
	ev := t.TempDir()
	out, code := stopproof(t, 2*time.Minute, "scangate", "--sim", "--watch", "5s", "--evidence-dir", ev)
	if code != 0 {
		t.Fatalf("scangate exit %d", code)
	}
	recs, _ := filepath.Glob(filepath.Join(ev, "*.mcap"))
	if len(recs) != 1 {
		t.Fatalf("recordings %v", recs)
	}
	jout, jcode := stopproof(t, time.Minute, "judge", recs[0])
	if jcode != 0 || !strings.Contains(jout, "re-judge: the same verdict as the live run") || !strings.Contains(jout, "PASS") {
		t.Fatalf("judge exit %d", jcode)
	}
	live := strings.Split(strings.TrimSpace(out[strings.Index(out, "{"):]), "\n")[0]
	if !strings.Contains(jout, live) {
		t.Errorf("re-judged JSON line is not the live one %q", live)
	}
}

// stopproof report: the formats it is asked for, exit 0 against a baseline the run meets, exit 1 with the
// regression named against one it does not, 2 for a file that is no run.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	pass, neg := captures(t, "stand-sim-pass.mcap"), captures(t, "stand-sim-ignore-motor.mcap")
	base := filepath.Join(dir, "baseline.json")
	if _, code := stopproof(t, time.Minute, "report", "--quiet", "--write-baseline", base, pass); code != 0 {
		t.Fatalf("--write-baseline exit %d", code)
	}
	md, junit, html := filepath.Join(dir, "r.md"), filepath.Join(dir, "j.xml"), filepath.Join(dir, "r.html")
	out, code := stopproof(t, time.Minute, "report", "--baseline", base, "--md", md, "--junit", junit, "--html", html, pass)
	if code != 0 || !strings.Contains(out, "| driver kill | 0.45 s PASS |") || !strings.Contains(out, "no regression in 3 lines") {
		t.Fatalf("against its own baseline: exit %d", code)
	}
	for _, f := range []string{md, junit, html} {
		if fi, err := os.Stat(f); err != nil || fi.Size() < 100 {
			t.Errorf("%s: %v", f, err)
		}
	}
	out, code = stopproof(t, time.Minute, "report", "--baseline", base, neg)
	if code != exitFail || !strings.Contains(out, "REGRESSION: kill fwd 0.35: passed in the baseline (0.45 s), now FAIL") {
		t.Errorf("negative control against the passing baseline: exit %d, want %d and the kill regression", code, exitFail)
	}
	if out, code := stopproof(t, time.Minute, "report", base); code != exitAbort || !strings.Contains(out, "not a stop proof record") {
		t.Errorf("a baseline given as a run: exit %d\n%s", code, out)
	}
	if _, code := stopproof(t, time.Minute, "report", "--tolerance", "soon", pass); code != exitAbort {
		t.Errorf("bad --tolerance: exit %d", code)
	}
}
