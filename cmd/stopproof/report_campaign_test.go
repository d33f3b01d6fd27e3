package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/internal/cliargs"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/report"
)

// writeCampaign writes a campaign folder: the e-stop at 0.2 m/s, R = C = 0.8 (8 runs), the runs in seqs
// (nil: all 8), the run failSeq (0: none) failed.
func writeCampaign(t *testing.T, dir string, seqs []int, failSeq int, day int) {
	t.Helper()
	p := campaign.Plan{Version: 1, Name: "cli", Proof: "stand", R: 0.8, C: 0.8, Seed: 1,
		Conditions: campaign.Conditions{Setup: "stand", Surface: "wheels in the air", Load: "none", Gradient: "level", Operator: "go test"},
		Cells:      []campaign.Cell{{Path: "estop", Speed: 0.2, MaxStillS: 0.5}}}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := yaml.Marshal(p)
	os.WriteFile(filepath.Join(dir, "plan.yaml"), b, 0o644)
	if seqs == nil {
		seqs = []int{1, 2, 3, 4, 5, 6, 7, 8}
	}
	t0 := time.Date(2026, 12, 2+day, 9, 0, 0, 0, time.UTC)
	for _, q := range seqs {
		r := campaign.Run{Slot: campaign.Slot{Seq: q, Cell: "estop fwd 0.2", Rep: q}, Outcome: campaign.Pass, NoRestart: true,
			StillS: 0.2 + 0.01*float64(q), TravelM: math.NaN(), Start: t0.Add(time.Duration(q) * time.Minute), End: t0.Add(time.Duration(q)*time.Minute + 15*time.Second),
			Evidence: "evidence/" + strconv.Itoa(q) + ".log"}
		if q == failSeq {
			r.Outcome, r.StillS, r.Reason = campaign.Fail, math.NaN(), "never still"
		}
		b, _ := json.Marshal(r)
		os.WriteFile(filepath.Join(dir, "runs", strconv.Itoa(q)+".json"), b, 0o644)
	}
}

// report runs stopproof report in this process and returns its output and exit status.
func runApp(t *testing.T, args ...string) (string, int) {
	t.Helper()
	app := newApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	err := app.Run(cliargs.Reorder(append([]string{"stopproof", "report"}, args...), app))
	code := 0
	if err != nil {
		code = exitAbort
		if ec, ok := err.(interface{ ExitCode() int }); ok {
			code = ec.ExitCode()
		}
		out.WriteString(err.Error())
	}
	return out.String(), code
}

func TestReportCampaign(t *testing.T) {
	root := t.TempDir()
	camp := filepath.Join(root, "camp")
	writeCampaign(t, camp, nil, 0, 0)
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	f := func(n string) string { return filepath.Join(out, n) }
	text, code := runApp(t, "--campaign", camp, "--html", f("r.html"), "--md", f("r.md"), "--json", f("r.json"), "--junit", f("r.xml"))
	if code != 0 || !strings.Contains(text, "RESULT: PASS (1 of 1 cells pass)") || !strings.Contains(text, "R >= 0.8 at 80 % confidence: 8 of 8") {
		t.Fatalf("exit %d:\n%s", code, text)
	}
	md, _ := os.ReadFile(f("r.md"))
	if !strings.Contains(string(md), "[log](../camp/evidence/1.log)") {
		t.Errorf("the markdown's links are not relative to its folder:\n%s", md)
	}
	var doc report.Testsuites
	ju, _ := os.ReadFile(f("r.xml"))
	if err := xml.Unmarshal(ju, &doc); err != nil || doc.Tests != 1 || doc.Failures != 0 {
		t.Errorf("junit: %v %+v", err, doc)
	}
	html, _ := os.ReadFile(f("r.html"))
	if !strings.Contains(string(html), "<svg") {
		t.Error("no plot in the HTML")
	}

	// Shards merged; a failing campaign exits 1 and names the run; bad input exits 2.
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeCampaign(t, a, []int{1, 3, 5, 7}, 0, 0)
	writeCampaign(t, b, []int{2, 4, 6, 8}, 6, 0)
	if text, code := runApp(t, "--campaign", a, b); code != exitFail || !strings.Contains(text, "run 6 (") || !strings.Contains(text, "8/8") {
		t.Errorf("shards with a failed run: exit %d\n%s", code, text)
	}
	if text, code := runApp(t, "--campaign", a); code != exitFail || !strings.Contains(text, "4 of the 8 runs done") {
		t.Errorf("half a campaign: exit %d\n%s", code, text)
	}
	os.WriteFile(filepath.Join(a, "runs", "9.json"), []byte("{"), 0o644)
	for _, args := range [][]string{{"--campaign", a}, {"--campaign"}, {"--campaign", filepath.Join(root, "none")}, {"--campaign", "--history", camp},
		{"--campaign", "--baseline", "x.json", camp}, {"--json", "x.json", "proof.json"}} {
		if text, code := runApp(t, args...); code != exitAbort {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitAbort, text)
		}
	}
	if text, _ := runApp(t, "--campaign", a); !strings.Contains(text, filepath.Join("runs", "9.json")+": not a campaign run record") {
		t.Errorf("the error does not name the file: %s", text)
	}
}

func TestReportHistory(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for day := 0; day < 3; day++ {
		d := filepath.Join(root, "c"+strconv.Itoa(day))
		writeCampaign(t, d, nil, 0, day)
		dirs = append(dirs, d)
	}
	if text, code := runApp(t, append([]string{"--history"}, dirs...)...); code != 0 || !strings.Contains(text, "MONITOR: PASS over 3 campaigns (tolerance +10 %)") {
		t.Errorf("a steady history: exit %d\n%s", code, text)
	}
	// The latest campaign's e-stop is slower by 0.1 s in every run (0.28 -> 0.38 s worst): past +10 %.
	slow := filepath.Join(root, "slow")
	writeCampaign(t, slow, nil, 0, 5)
	files, _ := filepath.Glob(filepath.Join(slow, "runs", "*.json"))
	for _, f := range files {
		r, _ := campaign.LoadRun(f)
		r.StillS += 0.1
		b, _ := json.Marshal(r)
		os.WriteFile(f, b, 0o644)
	}
	html := filepath.Join(root, "m.html")
	text, code := runApp(t, append(append([]string{"--history", "--html", html}, dirs...), slow)...)
	if code != exitFail || !strings.Contains(text, "grew past the previous campaigns' median") {
		t.Errorf("growth: exit %d\n%s", code, text)
	}
	if text, code := runApp(t, append(append([]string{"--history", "--tolerance", "50%"}, dirs...), slow)...); code != 0 {
		t.Errorf("+50 %%: exit %d\n%s", code, text)
	}
	if text, code := runApp(t, "--history", "--tolerance", "lots", dirs[0]); code != exitAbort {
		t.Errorf("bad tolerance: exit %d\n%s", code, text)
	}
}
