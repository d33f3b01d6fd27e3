package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The campaign folder:
//
//	plan.yaml               the plan file as given (its SHA-256 is in campaign.json)
//	campaign.json           Meta: version, plan hash, created, seed, shard, the whole schedule
//	runs/0007.started       the 7th slot's run began (written before anything moves)
//	runs/0007.json          its Run, written atomically when it ended: the slot is done
//	runs/0007-cut1.json     a run of slot 7 that began and never ended (Outcome CUT), found on resume
//	runs/0007/              its evidence log, MCAP recording and the proof's printed lines
//	workers/1/              each robot's own logs (the simulated robot's driver log)
//	doctor/20261204_221500.json  the doctor's report before a session on a rig (stopproof campaign --rig)
//
// Every JSON file is written to a temporary name, synced and renamed, so a power cut leaves either the old
// state or the new one, never half a file.
const (
	PlanFile = "plan.yaml"
	MetaFile = "campaign.json"
	RunsDir  = "runs"
	// DoctorDir holds the doctor's JSON reports, one a session on a rig, named by their UTC time.
	DoctorDir = "doctor"
)

// Meta is campaign.json.
type Meta struct {
	Version  int       `json:"version"`
	PlanHash string    `json:"plan_sha256"`
	Created  time.Time `json:"created"`
	Seed     int64     `json:"seed"`
	N        int       `json:"n"`
	// Shard is "i/n" when this folder holds one shard of the campaign: the slots with (Seq-1) % n == i-1.
	Shard    string `json:"shard,omitempty"`
	Schedule []Slot `json:"schedule"` // the whole campaign's, in order (a shard runs its part of it)
}

// Shard is one of N parts of a campaign, for a CI job matrix: part I (1..N) runs the slots with
// (Seq-1) % N == I-1, so shard 1/2 runs seq 1, 3, 5, ... and shard 2/2 runs seq 2, 4, 6, ...
type Shard struct{ I, N int }

// ParseShard reads "i/n" ("" is the whole campaign).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 1 <= i <= n, e.g. 1/2", s)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// Takes reports whether the shard runs slot seq (the whole campaign takes every slot).
func (s Shard) Takes(seq int) bool { return s.N <= 1 || (seq-1)%s.N == s.I-1 }

// Folder is an open campaign folder.
type Folder struct {
	Dir   string
	Plan  *Plan
	Meta  Meta
	Shard Shard
}

// Create starts a campaign in dir (created if missing; it must hold no campaign) from the plan file's bytes.
// If dir already holds this plan's campaign (same plan hash and shard), it is opened as by Open: starting
// again is resuming. A campaign of another plan or shard is refused.
func Create(dir string, planBytes []byte, shard Shard, now time.Time) (*Folder, error) {
	p, err := ParsePlan(planBytes)
	if err == nil {
		err = p.Runnable()
	}
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, MetaFile)); err == nil {
		f, err := Open(dir)
		if err != nil {
			return nil, err
		}
		if f.Meta.PlanHash != Hash(planBytes) {
			return nil, fmt.Errorf("%s holds the campaign of another plan (plan.yaml there has sha256 %.12s, this plan %.12s): pass another --dir, or resume that campaign with stopproof campaign resume %s",
				dir, f.Meta.PlanHash, Hash(planBytes), dir)
		}
		if f.Shard != shard {
			return nil, fmt.Errorf("%s holds shard %q of this campaign, not %q: each shard needs its own folder", dir, f.Shard, shard)
		}
		return f, nil
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%s is not empty and holds no campaign (no %s): pass an empty or new --dir", dir, MetaFile)
	}
	if err := os.MkdirAll(filepath.Join(dir, RunsDir), 0o755); err != nil {
		return nil, err
	}
	m := Meta{Version: Version, PlanHash: Hash(planBytes), Created: now.UTC(), Seed: p.Seed, N: p.Runs(),
		Shard: shard.String(), Schedule: Schedule(p)}
	if err := writeAtomic(filepath.Join(dir, PlanFile), planBytes); err != nil {
		return nil, err
	}
	if err := writeJSONAtomic(filepath.Join(dir, MetaFile), m); err != nil { // last: its presence marks a campaign
		return nil, err
	}
	return &Folder{Dir: dir, Plan: p, Meta: m, Shard: shard}, nil
}

// Open opens an existing campaign folder (resume, and the report). It refuses a folder of a newer format, a
// plan.yaml changed since the campaign began, and a schedule that is not the plan's.
func Open(dir string) (*Folder, error) {
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s is no campaign folder (no %s); start one with stopproof campaign PLAN --dir %s", dir, MetaFile, dir)
		}
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, MetaFile), err)
	}
	if m.Version > Version {
		return nil, fmt.Errorf("%s was written by a newer stopproof (campaign format %d; this one reads up to %d): use a newer stopproof", dir, m.Version, Version)
	}
	pb, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if err != nil {
		return nil, fmt.Errorf("campaign %s: %w", dir, err)
	}
	if h := Hash(pb); h != m.PlanHash {
		return nil, fmt.Errorf("%s: plan.yaml was changed since the campaign began (sha256 %.12s, recorded %.12s): a campaign runs the plan it began with; restore it or start a new campaign", dir, h, m.PlanHash)
	}
	p, err := ParsePlan(pb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if !slices.Equal(Schedule(p), m.Schedule) {
		return nil, fmt.Errorf("%s: the recorded schedule is not the plan's (seed %d): the folder was edited or written by another stopproof", dir, p.Seed)
	}
	sh, err := ParseShard(m.Shard)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return &Folder{Dir: dir, Plan: p, Meta: m, Shard: sh}, nil
}

// Slots are this folder's part of the schedule (all of it, or the shard's).
func (f *Folder) Slots() []Slot {
	var out []Slot
	for _, s := range f.Meta.Schedule {
		if f.Shard.Takes(s.Seq) {
			out = append(out, s)
		}
	}
	return out
}

func (f *Folder) runPath(seq int) string {
	return filepath.Join(f.Dir, RunsDir, fmt.Sprintf("%04d.json", seq))
}
func (f *Folder) startedPath(seq int) string {
	return filepath.Join(f.Dir, RunsDir, fmt.Sprintf("%04d.started", seq))
}

// RunDir is the folder of a slot's evidence, relative to the campaign folder.
func RunDir(seq int) string { return filepath.Join(RunsDir, fmt.Sprintf("%04d", seq)) }

// Done reports whether slot seq has its result.
func (f *Folder) Done(seq int) bool {
	_, err := os.Stat(f.runPath(seq))
	return err == nil
}

// Pending are the slots of this folder without a result, in schedule order.
func (f *Folder) Pending() []Slot {
	var out []Slot
	for _, s := range f.Slots() {
		if !f.Done(s.Seq) {
			out = append(out, s)
		}
	}
	return out
}

// RecordDoctor keeps the doctor's JSON report of a session (atomically) as doctor/<UTC time>.json and
// returns its path relative to the folder, which the session's runs record in their conditions. A second
// report of the same second gets a suffix: no report is overwritten.
func (f *Folder) RecordDoctor(report []byte, at time.Time) (string, error) {
	if err := os.MkdirAll(filepath.Join(f.Dir, DoctorDir), 0o755); err != nil {
		return "", err
	}
	base := at.UTC().Format("20060102_150405")
	for k := 1; ; k++ {
		name := base + ".json"
		if k > 1 {
			name = fmt.Sprintf("%s-%d.json", base, k)
		}
		rel := filepath.Join(DoctorDir, name)
		_, err := os.Stat(filepath.Join(f.Dir, rel))
		switch {
		case errors.Is(err, os.ErrNotExist):
			return rel, writeAtomic(filepath.Join(f.Dir, rel), report)
		case err != nil:
			return "", fmt.Errorf("campaign: doctor report: %w", err)
		}
	}
}

// started is the marker's content: enough to record the cut run.
type started struct {
	Slot
	Worker int       `json:"worker"`
	Start  time.Time `json:"start"`
}

// MarkStarted writes the slot's started marker (before anything moves).
func (f *Folder) MarkStarted(s Slot, worker int, now time.Time) error {
	if f.Done(s.Seq) {
		return fmt.Errorf("campaign: slot %d is done already; it is never run twice", s.Seq)
	}
	return writeJSONAtomic(f.startedPath(s.Seq), started{s, worker, now.UTC()})
}

// Finish records the slot's run: its result file (atomically), then the marker goes. A run with Outcome
// CUT (abandoned at Ctrl-C) is kept as a cut record and leaves the slot to be run again.
func (f *Folder) Finish(r Run) error {
	if r.Outcome == Cut {
		if err := f.writeCut(r); err != nil {
			return err
		}
	} else {
		if f.Done(r.Seq) {
			return fmt.Errorf("campaign: slot %d is done already; its second result is not recorded", r.Seq)
		}
		if err := writeJSONAtomic(f.runPath(r.Seq), r); err != nil {
			return err
		}
	}
	if err := os.Remove(f.startedPath(r.Seq)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Join(f.Dir, RunsDir))
}

// writeCut writes r as the slot's next cut record, runs/0007-cutK.json: the first K without a file. A Stat
// that fails otherwise than "no such file" (runs/ is no folder, a permission, an I/O error) is returned: no K
// would ever be free, and looking further would loop forever (issue 31).
func (f *Folder) writeCut(r Run) error {
	for k := 1; ; k++ {
		p := filepath.Join(f.Dir, RunsDir, fmt.Sprintf("%04d-cut%d.json", r.Seq, k))
		_, err := os.Stat(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return writeJSONAtomic(p, r)
		case err != nil:
			return fmt.Errorf("campaign: cannot record the cut run of slot %d: %w; check that %s is a folder this user can write", r.Seq, err, filepath.Join(f.Dir, RunsDir))
		}
	}
}

// Recover finds the runs that began and never ended (a started marker without a result: power loss, SIGKILL,
// a crash) and records each as CUT, never a success; their slots are pending again. A marker beside a result
// (the result was written, the marker not yet removed) is only removed. It returns the cut runs.
func (f *Folder) Recover(now time.Time) ([]Run, error) {
	ms, err := filepath.Glob(filepath.Join(f.Dir, RunsDir, "*.started"))
	if err != nil {
		return nil, err
	}
	sort.Strings(ms)
	var cut []Run
	for _, m := range ms {
		b, err := os.ReadFile(m)
		var st started
		if err == nil {
			err = json.Unmarshal(b, &st)
		}
		if err != nil { // a marker is written atomically; a bad one is not ours to guess about
			return nil, fmt.Errorf("campaign: started marker %s unreadable (%v): remove it if no run of it is on record", m, err)
		}
		if f.Done(st.Seq) {
			if err := os.Remove(m); err != nil {
				return nil, err
			}
			continue
		}
		r := Run{Slot: st.Slot, Shard: f.Shard.String(), Worker: st.Worker, Start: st.Start, End: now.UTC(), Outcome: Cut,
			Reason: "the run began and never wrote its end (power loss, SIGKILL or a crash): not counted; its slot runs again",
			StillS: nan(), TravelM: nan(), ResponseS: nan(), DecelS: nan(), Evidence: ""}
		if _, err := os.Stat(filepath.Join(f.Dir, RunDir(st.Seq))); err == nil {
			r.Evidence = RunDir(st.Seq)
		}
		if err := f.Finish(r); err != nil {
			return nil, err
		}
		cut = append(cut, r)
	}
	return cut, nil
}

// Runs are every run on record in the folder, results and cut runs, ordered by Seq then start.
func (f *Folder) Runs() ([]Run, error) { return LoadRuns(f.Dir) }

// LoadRuns reads every run record of a campaign folder: the results (runs/NNNN.json) and the cut runs
// (runs/NNNN-cutK.json, Outcome CUT), ordered by Seq then start. Started markers are not runs.
func LoadRuns(dir string) ([]Run, error) {
	ps, err := filepath.Glob(filepath.Join(dir, RunsDir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Run
	for _, p := range ps {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r Run
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Seq != out[j].Seq {
			return out[i].Seq < out[j].Seq
		}
		return out[i].Start.Before(out[j].Start)
	})
	return out, nil
}

func writeJSONAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// writeAtomic writes b to a temporary file beside path, syncs it, renames it over path and syncs the folder.
func writeAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("campaign: writing %s: %w", path, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("campaign: sync %s: %w", dir, err)
	}
	return nil
}
