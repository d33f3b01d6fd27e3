// `rosorin-base stops` in process: against a real stop log written with driver/stoplog in a temporary state
// directory (good, damaged and torn), and --follow against a real control socket (api.Listen) on which the
// test publishes stop records as the driver does.

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/stoplog"
)

// lockedBuf is a bytes.Buffer safe for a command writing while the test reads.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// runStopsCmd runs `rosorin-base stops ARGS...` in process and returns stdout, stderr and the exit status.
func runStopsCmd(ctx context.Context, args ...string) (string, string, int, *lockedBuf) {
	app := newApp()
	var out, errb lockedBuf
	app.Writer, app.ErrWriter = &out, &errb
	app.ExitErrHandler = func(*cli.Context, error) {}
	err := app.RunContext(ctx, append([]string{"rosorin-base", "stops"}, args...))
	code := 0
	if err != nil {
		code = 1
		if ec, ok := err.(cli.ExitCoder); ok {
			code = ec.ExitCode()
		}
		errb.Write([]byte(err.Error()))
	}
	return out.String(), errb.String(), code, &out
}

// writeStopLog writes recs to a stop log in a new state directory, as the driver does.
func writeStopLog(t *testing.T, recs ...api.StopRecord) string {
	t.Helper()
	dir := t.TempDir()
	l, _, err := stoplog.Open(dir, stoplog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		l.Append(r)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func sampleStops(now time.Time) []api.StopRecord {
	lim := &api.StopLimit{Kind: api.StopEStop, MaxSpeed: 0.5, MaxStillS: 0.45, MaxTravelM: 0.1, Source: "config"}
	return []api.StopRecord{
		{Wall: now.Add(-3 * time.Hour), Kind: api.StopEStop, Reason: "estop request from pid 812 (teleop)", BodyVel: [3]float64{0.3, 0, 0},
			Speed: 0.3, Direction: "fwd", StillS: ptr(0.31), StillFrom: "board gyro vibration", TravelM: ptr(0.04), Outcome: "PASS",
			Confidence: api.ConfidenceOK, Limit: lim, Level: api.StopLevelOK},
		{Wall: now.Add(-30 * time.Minute), Kind: api.StopDeadman, Reason: "no command for 0.3 s", Speed: 0.02, Direction: "fwd",
			Outcome: "NOT JUDGED", Confidence: api.ConfidenceCrawl},
		{Wall: now.Add(-10 * time.Minute), Kind: api.StopEStop, Reason: "estop topic", Speed: 0.35, Direction: "back",
			StillS: ptr(0.52), TravelM: ptr(0.12), Outcome: "PASS", Confidence: api.ConfidenceOK, Limit: lim, Level: api.StopLevelWarn},
	}
}

func TestStopsTableAndJSON(t *testing.T) {
	dir := writeStopLog(t, sampleStops(time.Now())...)
	out, errOut, code, _ := runStopsCmd(context.Background(), "--state-dir", dir)
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"seq", "wall time", "still s", "travel m", "confidence", "limit", "level", "reason",
		"estop request from pid 812 (teleop)", "0.310", "0.45 s 0.10 m", "warn", "crawl"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "| estop   |"); n != 2 {
		t.Errorf("%d estop rows, want 2:\n%s", n, out)
	}
	// JSON lines: each line one record, the same the stops stream carries.
	out, _, code, _ = runStopsCmd(context.Background(), "--state-dir", dir, "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("--json: exit %d, %d lines:\n%s", code, len(lines), out)
	}
	for i, l := range lines {
		var r api.StopRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Seq != uint64(i+1) {
			t.Fatalf("line %d: %v %+v", i, err, r)
		}
	}
	// Filters.
	for _, c := range []struct {
		args []string
		seqs []uint64
	}{
		{[]string{"--kind", "estop"}, []uint64{1, 3}},
		{[]string{"--kind", "deadman,board"}, []uint64{2}},
		{[]string{"--since", "1h"}, []uint64{2, 3}},
		{[]string{"--last", "1"}, []uint64{3}},
		{[]string{"--kind", "estop", "--last", "1", "--since", "5m"}, nil},
	} {
		out, _, code, _ := runStopsCmd(context.Background(), append([]string{"--state-dir", dir, "--json"}, c.args...)...)
		var got []uint64
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var r api.StopRecord
			json.Unmarshal(sc.Bytes(), &r)
			got = append(got, r.Seq)
		}
		if code != 0 || len(got) != len(c.seqs) || (len(got) > 0 && got[0] != c.seqs[0]) {
			t.Errorf("%v: exit %d, seqs %v, want %v", c.args, code, got, c.seqs)
		}
	}
	for _, bad := range [][]string{{"--kind", "brake"}, {"--last", "-1"}, {"extra"}} {
		if _, errOut, code, _ := runStopsCmd(context.Background(), append([]string{"--state-dir", dir}, bad...)...); code != stopsExitCannot {
			t.Errorf("%v: exit %d, want %d (%s)", bad, code, stopsExitCannot, errOut)
		}
	}
	// No log at all: an empty table and a line saying so, exit 0.
	out, _, code, _ = runStopsCmd(context.Background(), "--state-dir", t.TempDir())
	if code != 0 || !strings.Contains(out, "no stop in the log of") {
		t.Errorf("no log: exit %d\n%s", code, out)
	}
}

// A damaged line in the middle and a torn last line: both named on stderr, every good record printed, exit 1.
func TestStopsDamagedLog(t *testing.T) {
	dir := writeStopLog(t, sampleStops(time.Now())...)
	seg := filepath.Join(dir, stoplog.SubDir, "stops-000001.jsonl")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.IndexByte(b, '\n') + 1
	damaged := bytes.Clone(b)
	i := bytes.Index(damaged[first:], []byte(`"deadman"`)) + first
	damaged[i+1] = 'D' // the second record's kind: its checksum no longer matches
	damaged = append(damaged, []byte(`0badc0de {"seq":4,"kind":"est`)...)
	if err := os.WriteFile(seg, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code, _ := runStopsCmd(context.Background(), "--state-dir", dir, "--json")
	if code != stopsExitBadRecords {
		t.Fatalf("exit %d, want %d", code, stopsExitBadRecords)
	}
	if !strings.Contains(errOut, "line 2") || !strings.Contains(errOut, "checksum mismatch") || !strings.Contains(errOut, "torn last line") ||
		!strings.Contains(errOut, "2 bad record(s) skipped, 2 good printed") {
		t.Errorf("stderr does not name both bad records:\n%s", errOut)
	}
	if n := strings.Count(out, "\n"); n != 2 || !strings.Contains(out, `"seq":1`) || !strings.Contains(out, `"seq":3`) {
		t.Errorf("good records not all printed:\n%s", out)
	}
	// Read only: the torn line is still there.
	if b2, _ := os.ReadFile(seg); !bytes.Equal(b2, damaged) {
		t.Error("rosorin-base stops changed the log")
	}
}

// stubDriver serves the control API with no driver behind it: only the topic streams are used here.
type stubDriver struct{ api.Handler }

// --follow: the log first, then each stop the driver publishes on TopicStops; one already in the log (by
// seq) and one of another kind are not printed again.
func TestStopsFollow(t *testing.T) {
	now := time.Now()
	dir := writeStopLog(t, sampleStops(now)...)
	sockDir, err := os.MkdirTemp("", "stops")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "base.sock")
	srv, err := api.Listen(sock, stubDriver{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		errOut string
		code   int
	}
	done := make(chan result, 1)
	var out *lockedBuf
	started := make(chan *lockedBuf, 1)
	go func() {
		app := newApp()
		var o, e lockedBuf
		app.Writer, app.ErrWriter = &o, &e
		app.ExitErrHandler = func(*cli.Context, error) {}
		started <- &o
		err := app.RunContext(ctx, []string{"rosorin-base", "stops", "--state-dir", dir, "--json", "--kind", "estop", "--follow", "--socket", sock})
		code := 0
		if err != nil {
			code = 1
			if ec, ok := err.(cli.ExitCoder); ok {
				code = ec.ExitCode()
			}
		}
		done <- result{e.String(), code}
	}()
	out = <-started
	deadline := time.Now().Add(5 * time.Second)
	for srv.Stats().Subscribers == 0 {
		if time.Now().After(deadline) {
			t.Fatal("stops --follow never subscribed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	old := sampleStops(now)[2]
	old.Seq = 3
	srv.Publish(api.TopicStops, old) // already in the log
	srv.Publish(api.TopicStops, api.StopRecord{Seq: 4, Kind: api.StopDeadman, Wall: now})
	srv.Publish(api.TopicStops, api.StopRecord{Seq: 5, Kind: api.StopEStop, Wall: now, Reason: "live", StillS: ptr(0.2), Confidence: api.ConfidenceOK})
	for !strings.Contains(out.String(), `"reason":"live"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the published stop never printed:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	r := <-done
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	var seqs []uint64
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec api.StopRecord
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, rec.Seq)
	}
	if len(seqs) != 3 || seqs[0] != 1 || seqs[1] != 3 || seqs[2] != 5 {
		t.Fatalf("printed seqs %v, want [1 3 5] (the log's e-stops, then the live one)", seqs)
	}
	// Without a driver: exit 2 after the log.
	logOut, errOut, code, _ := runStopsCmd(context.Background(), "--state-dir", dir, "--follow", "--socket", filepath.Join(sockDir, "none.sock"))
	if code != stopsExitCannot || !strings.Contains(errOut, "no driver") {
		t.Errorf("no driver: exit %d: %s", code, errOut)
	}
	if !strings.Contains(logOut, "(teleop)") || !strings.Contains(logOut, "no command for 0.3 s") || !strings.Contains(logOut, "estop topic") {
		t.Errorf("no driver: the log not printed first:\n%s", logOut)
	}
}
