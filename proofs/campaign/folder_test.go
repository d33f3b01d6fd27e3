package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

func newFolder(t *testing.T, shard Shard) *Folder {
	t.Helper()
	f, err := Create(filepath.Join(t.TempDir(), "c"), []byte(goodPlan), shard, t0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCreateAndOpen(t *testing.T) {
	f := newFolder(t, Shard{})
	for _, n := range []string{PlanFile, MetaFile, RunsDir} {
		if _, err := os.Stat(filepath.Join(f.Dir, n)); err != nil {
			t.Error(err)
		}
	}
	g, err := Open(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Meta.Schedule, Schedule(f.Plan)) || g.Meta.PlanHash != Hash([]byte(goodPlan)) || g.Meta.N != 8 {
		t.Errorf("meta %+v", g.Meta)
	}
	// The same plan again is a resume; another plan, another shard, a stranger's folder are refused.
	if _, err := Create(f.Dir, []byte(goodPlan), Shard{}, t0); err != nil {
		t.Errorf("same plan: %v", err)
	}
	other := strings.Replace(goodPlan, "seed: 7", "seed: 8", 1)
	for _, tc := range []struct {
		name string
		do   func() error
		want string
	}{
		{"another plan", func() error { _, err := Create(f.Dir, []byte(other), Shard{}, t0); return err }, "another plan"},
		{"another shard", func() error { _, err := Create(f.Dir, []byte(goodPlan), Shard{1, 2}, t0); return err }, "shard"},
		{"not a campaign", func() error {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, "x"), nil, 0o644)
			_, err := Create(d, []byte(goodPlan), Shard{}, t0)
			return err
		}, "not empty"},
		{"no folder", func() error { _, err := Open(filepath.Join(t.TempDir(), "none")); return err }, "no campaign folder"},
		{"bad plan", func() error { _, err := Create(t.TempDir(), []byte("proof: x"), Shard{}, t0); return err }, "unknown"},
	} {
		if err := tc.do(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestOpenRefusesNewerOrEdited(t *testing.T) {
	f := newFolder(t, Shard{})
	meta := filepath.Join(f.Dir, MetaFile)
	b, _ := os.ReadFile(meta)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["version"] = Version + 1
	nb, _ := json.Marshal(m)
	os.WriteFile(meta, nb, 0o644)
	if _, err := Open(f.Dir); err == nil || !strings.Contains(err.Error(), "newer stopproof") {
		t.Errorf("newer version: %v", err)
	}
	os.WriteFile(meta, b, 0o644)
	os.WriteFile(filepath.Join(f.Dir, PlanFile), []byte(strings.Replace(goodPlan, "0.8", "0.9", 1)), 0o644)
	if _, err := Open(f.Dir); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("edited plan: %v", err)
	}
	os.WriteFile(filepath.Join(f.Dir, PlanFile), []byte(goodPlan), 0o644)
	m["version"] = Version
	m["schedule"] = m["schedule"].([]any)[1:]
	nb, _ = json.Marshal(m)
	os.WriteFile(meta, nb, 0o644)
	if _, err := Open(f.Dir); err == nil || !strings.Contains(err.Error(), "schedule") {
		t.Errorf("edited schedule: %v", err)
	}
}

// TestShards: shard i/n takes the slots with (seq-1) % n == i-1; the shards of one n together take every
// slot exactly once.
func TestShards(t *testing.T) {
	for _, bad := range []string{"0/2", "3/2", "1/0", "a/2", "1-2", "1/", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	s, _ := ParseShard("1/2")
	if !s.Takes(1) || s.Takes(2) || !s.Takes(3) {
		t.Error("1/2 must take seq 1, 3, ... and not 2")
	}
	for n := 1; n <= 4; n++ {
		seen := map[int]int{}
		for i := 1; i <= n; i++ {
			f := newFolder(t, Shard{i, n})
			for _, sl := range f.Slots() {
				seen[sl.Seq]++
				if n > 1 && (sl.Seq-1)%n != i-1 {
					t.Errorf("shard %d/%d took seq %d", i, n, sl.Seq)
				}
			}
		}
		for seq := 1; seq <= 16; seq++ {
			if seen[seq] != 1 {
				t.Errorf("n=%d: seq %d taken %d times", n, seq, seen[seq])
			}
		}
	}
}

// fakeRobot records which slots it ran; fail lists seqs that FAIL; block, when set, makes a run wait for
// its context (to be abandoned).
type fakeRobot struct {
	mu      sync.Mutex
	ran     map[int]int
	fail    map[int]bool
	guard   map[int]bool // seqs whose run a guard refuses (an error: nothing moved)
	block   map[int]chan struct{}
	battery float64
}

func (r *fakeRobot) Run(ctx context.Context, s Slot, c Cell, dir string) (Run, error) {
	r.mu.Lock()
	if r.ran == nil {
		r.ran = map[int]int{}
	}
	r.ran[s.Seq]++
	ch := r.block[s.Seq]
	r.mu.Unlock()
	if r.guard[s.Seq] {
		return Run{}, errors.New("ABORT: e-stop latched")
	}
	if ch != nil {
		close(ch)
		<-ctx.Done()
		return Run{Outcome: Fail, Reason: "interrupted", StillS: math.NaN(), TravelM: math.NaN()}, nil
	}
	if r.fail[s.Seq] {
		return Run{Outcome: Fail, Reason: "NEVER settled", StillS: math.NaN(), TravelM: math.NaN()}, nil
	}
	return Run{Outcome: Pass, StillS: 0.4, TravelM: math.NaN(), NoRestart: true}, nil
}

func (r *fakeRobot) Battery(context.Context) float64 {
	if r.battery == 0 {
		return 12
	}
	return r.battery
}

func execute(t *testing.T, f *Folder, o Options) Tally {
	t.Helper()
	if o.Clock == nil {
		o.Clock = fixedClock{t0}
	}
	ses, err := Execute(context.Background(), context.Background(), f, o)
	if err != nil {
		t.Fatal(err)
	}
	return ses
}

// TestResumeCutRun: a run with a started marker and no result (SIGKILL) is recorded CUT on resume, its slot
// runs again, and no done slot runs twice: every slot has exactly one result.
func TestResumeCutRun(t *testing.T) {
	f := newFolder(t, Shard{})
	sl := f.Slots()
	// An earlier session: slot 1 done, slot 2 began and was killed.
	if err := f.MarkStarted(sl[0], 1, t0); err != nil {
		t.Fatal(err)
	}
	if err := f.Finish(Run{Slot: sl[0], Outcome: Pass, StillS: 0.3, TravelM: math.NaN()}); err != nil {
		t.Fatal(err)
	}
	if err := f.MarkStarted(sl[1], 1, t0); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(f.Dir, RunDir(2)), 0o755)
	g, err := Open(f.Dir) // resume
	if err != nil {
		t.Fatal(err)
	}
	robot := &fakeRobot{}
	ses := execute(t, g, Options{Robots: []Robot{robot}})
	if robot.ran[1] != 0 {
		t.Error("the done slot 1 ran again")
	}
	for seq := 2; seq <= 16; seq++ {
		if robot.ran[seq] != 1 {
			t.Errorf("slot %d ran %d times", seq, robot.ran[seq])
		}
	}
	if len(ses.Cut) != 1 || ses.Cut[0].Seq != 2 || ses.Cut[0].Outcome != Cut {
		t.Errorf("cut %+v", ses.Cut)
	}
	runs, err := g.Runs()
	if err != nil {
		t.Fatal(err)
	}
	results := map[int]int{}
	cuts := 0
	for _, r := range runs {
		if r.Outcome == Cut {
			cuts++
			if r.Seq != 2 || r.Evidence != RunDir(2) || !strings.Contains(r.Reason, "never wrote its end") {
				t.Errorf("cut record %+v", r)
			}
			continue
		}
		results[r.Seq]++
	}
	if cuts != 1 || len(results) != 16 {
		t.Errorf("%d cut, %d slots with results", cuts, len(results))
	}
	for seq, n := range results {
		if n != 1 {
			t.Errorf("slot %d has %d results", seq, n)
		}
	}
	cs, _ := Counts(g)
	if cs[0].Pass+cs[1].Pass != 16 || cs[0].Cut+cs[1].Cut != 1 {
		t.Errorf("counts %+v", cs)
	}
	if ms, _ := filepath.Glob(filepath.Join(g.Dir, RunsDir, "*.started")); len(ms) != 0 {
		t.Errorf("markers left: %v", ms)
	}
	if tmp, _ := filepath.Glob(filepath.Join(g.Dir, RunsDir, ".*tmp*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	// A done slot is never started or finished again.
	if err := g.MarkStarted(sl[0], 1, t0); err == nil {
		t.Error("a done slot was started again")
	}
	if err := g.Finish(Run{Slot: sl[0], Outcome: Pass}); err == nil {
		t.Error("a done slot got a second result")
	}
	// Resuming a finished campaign runs nothing.
	again := &fakeRobot{}
	execute(t, g, Options{Robots: []Robot{again}})
	if len(again.ran) != 0 {
		t.Errorf("a finished campaign ran %v", again.ran)
	}
}

// TestRecoverMarkerBesideResult: a result written and its marker not yet removed is a done run, not a cut one.
func TestRecoverMarkerBesideResult(t *testing.T) {
	f := newFolder(t, Shard{})
	s := f.Slots()[0]
	f.MarkStarted(s, 1, t0)
	writeJSONAtomic(f.runPath(s.Seq), Run{Slot: s, Outcome: Pass, StillS: 0.3})
	cut, err := f.Recover(t0)
	if err != nil || len(cut) != 0 {
		t.Errorf("cut %v, %v", cut, err)
	}
	if _, err := os.Stat(f.startedPath(s.Seq)); !os.IsNotExist(err) {
		t.Error("marker left")
	}
}

func TestFailedRunsNamed(t *testing.T) {
	f := newFolder(t, Shard{})
	robot := &fakeRobot{fail: map[int]bool{3: true, 11: true}}
	var out strings.Builder
	ses := execute(t, f, Options{Robots: []Robot{robot}, Out: &out})
	var seqs []int
	for _, r := range ses.Failed {
		seqs = append(seqs, r.Seq)
	}
	if !slices.Equal(seqs, []int{3, 11}) || ses.Ran != 16 {
		t.Errorf("failed %v, ran %d", seqs, ses.Ran)
	}
	if !strings.Contains(out.String(), "[16/16]") || !strings.Contains(out.String(), "failures so far 2") {
		t.Errorf("progress:\n%s", out.String())
	}
	cs, _ := Counts(f)
	var all []int
	for _, c := range cs {
		all = append(all, c.FailedSeqs...)
	}
	slices.Sort(all)
	if !slices.Equal(all, []int{3, 11}) {
		t.Errorf("count table names %v", all)
	}
}

// TestParallelEachOnce: three robots share the slots; each slot runs exactly once.
func TestParallelEachOnce(t *testing.T) {
	f := newFolder(t, Shard{})
	rs := []*fakeRobot{{}, {}, {}}
	execute(t, f, Options{Robots: []Robot{rs[0], rs[1], rs[2]}})
	total := map[int]int{}
	for _, r := range rs {
		for seq, n := range r.ran {
			total[seq] += n
		}
	}
	for seq := 1; seq <= 16; seq++ {
		if total[seq] != 1 {
			t.Errorf("slot %d ran %d times", seq, total[seq])
		}
	}
	runs, _ := f.Runs()
	workers := map[int]bool{}
	for _, r := range runs {
		workers[r.Worker] = true
	}
	if len(workers) < 2 {
		t.Errorf("one robot ran everything: %v", workers)
	}
}

// TestInterrupt: the first Ctrl-C (ctx) lets the run in progress finish and takes no more; the second
// (runCtx) abandons it: recorded CUT, its slot pending.
func TestInterrupt(t *testing.T) {
	f := newFolder(t, Shard{})
	started := make(chan struct{})
	robot := &fakeRobot{block: map[int]chan struct{}{3: started}}
	ctx, stop := context.WithCancel(context.Background())
	runCtx, abandon := context.WithCancel(context.Background())
	go func() {
		<-started
		stop()
		abandon()
	}()
	ses, err := Execute(ctx, runCtx, f, Options{Robots: []Robot{robot}, Clock: fixedClock{t0}})
	if err != nil {
		t.Fatal(err)
	}
	if ses.Ran != 2 || len(ses.Cut) != 1 || ses.Cut[0].Seq != 3 || !strings.Contains(ses.Cut[0].Reason, "abandoned") {
		t.Errorf("ran %d, cut %+v", ses.Ran, ses.Cut)
	}
	if ses.Pending != 14 || f.Done(3) {
		t.Errorf("pending %d, slot 3 done %v", ses.Pending, f.Done(3))
	}
}

// TestGuardStops: a robot that cannot run (a guard refused, nothing moved) stops the campaign; the slot is
// recorded CUT with the reason and stays pending.
func TestGuardStops(t *testing.T) {
	f := newFolder(t, Shard{})
	robot := &fakeRobot{guard: map[int]bool{2: true}}
	_, err := Execute(context.Background(), context.Background(), f, Options{Robots: []Robot{robot}})
	if err == nil || !strings.Contains(err.Error(), "e-stop latched") {
		t.Fatalf("error %v", err)
	}
	if f.Done(2) || !f.Done(1) || len(f.Pending()) != 15 {
		t.Errorf("pending %d", len(f.Pending()))
	}
	runs, _ := f.Runs()
	if len(runs) != 2 || runs[1].Outcome != Cut || !strings.Contains(runs[1].Reason, "nothing moved") {
		t.Errorf("runs %+v", runs)
	}
}

// TestBatteryPause: below battery_min_v the campaign asks before the run; no stops it (resumable), yes goes on.
func TestBatteryPause(t *testing.T) {
	plan := goodPlan + "battery_min_v: 11.5\n"
	for _, answer := range []bool{false, true} {
		f, err := Create(filepath.Join(t.TempDir(), "c"), []byte(plan), Shard{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		robot := &fakeRobot{battery: 11.0}
		asked := 0
		ses := execute(t, f, Options{Robots: []Robot{robot}, Ask: func(p string) bool {
			asked++
			if !strings.Contains(p, "11.00 V is below battery_min_v 11.50 V") {
				t.Errorf("prompt %q", p)
			}
			return answer
		}})
		if !answer && (asked != 1 || len(robot.ran) != 0 || ses.Pending != 16 || !strings.Contains(ses.Stopped, "battery")) {
			t.Errorf("no: asked %d, ran %v, %+v", asked, robot.ran, ses)
		}
		if answer && (asked != 16 || ses.Ran != 16) {
			t.Errorf("yes: asked %d, ran %d", asked, ses.Ran)
		}
	}
}

// TestRunJSONNull: NaN measurements are null in the run's JSON, and read back as NaN.
func TestRunJSONNull(t *testing.T) {
	f := newFolder(t, Shard{})
	s := f.Slots()[0]
	if err := f.Finish(Run{Slot: s, Outcome: Fail, StillS: math.NaN(), TravelM: math.NaN()}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.runPath(s.Seq))
	if !strings.Contains(string(b), `"still_s": null`) {
		t.Errorf("%s", b)
	}
	runs, _ := f.Runs()
	if !math.IsNaN(runs[0].StillS) {
		t.Errorf("still %v", runs[0].StillS)
	}
}

// TestWriteCutStatError: a cut record whose folder cannot be looked into (runs/ is a regular file: ENOTDIR; a
// name too long: ENAMETOOLONG) is an error naming the path, returned at once. Before issue 31 writeCut only
// left its loop on "not found", so it looked for a free K forever; the timeout turns that hang into a FAIL.
func TestWriteCutStatError(t *testing.T) {
	notDir := newFolder(t, Shard{})
	runs := filepath.Join(notDir.Dir, RunsDir)
	if err := os.RemoveAll(runs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(runs, []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := &Folder{Dir: filepath.Join(t.TempDir(), strings.Repeat("c", 300))} // a component over NAME_MAX (255)
	for _, tc := range []struct {
		name string
		f    *Folder
		want string
	}{
		{"runs is a file", notDir, "not a directory"},
		{"name too long", long, "file name too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Run{Slot: Slot{Seq: 3, Cell: "estop fwd 0.2", Rep: 1}, Outcome: Cut, StillS: nan(), TravelM: nan()}
			done := make(chan error, 1)
			go func() { done <- tc.f.Finish(r) }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("Finish of a cut run succeeded with no folder to write it in")
				}
				p := filepath.Join(tc.f.Dir, RunsDir, "0003-cut1.json")
				for _, w := range []string{tc.want, p, "slot 3"} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Finish of a cut run did not return in 5 s: writeCut loops on a Stat error that is not \"not found\"")
			}
		})
	}
}

// fixedClock stands still at t: the records' times of a test run.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

func (c fixedClock) Sleep(ctx context.Context, d time.Duration) error { return ctx.Err() }
