package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// FiledRun is one run record as the report reads it, with where it came from.
type FiledRun struct {
	Run
	Folder string // the campaign folder it was read from, as given
	File   string // its path inside Folder ("runs/17.json")
}

// Campaign is one campaign's plan and its run records, read from one folder or merged from its shards' folders.
type Campaign struct {
	Plan    Plan
	Folders []string
	Records []FiledRun // by Seq, a slot's CUT records before its counted one
}

// maxRunFile bounds a run record read into memory: one is about a kilobyte.
const maxRunFile = 1 << 20

// ParseRun reads one run record (runs/<seq>.json) and checks what the report relies on: a slot (seq and rep
// from 1, a cell), a known outcome, times to still and travels that are not negative. name goes into errors.
func ParseRun(name string, b []byte) (Run, error) {
	var r Run
	if len(b) > maxRunFile {
		return r, fmt.Errorf("%s: %d bytes is no run record (one is about a kilobyte)", name, len(b))
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: not a campaign run record: %w", name, err)
	}
	switch {
	case r.Seq < 1:
		return r, fmt.Errorf("%s: seq %d: a run's seq counts from 1", name, r.Seq)
	case r.Rep < 1:
		return r, fmt.Errorf("%s: rep %d: a run's rep counts from 1", name, r.Rep)
	case r.Cell == "":
		return r, fmt.Errorf("%s: the run names no cell", name)
	}
	switch r.Outcome {
	case Pass, Fail, Timeout, Cut:
	default:
		return r, fmt.Errorf("%s: outcome %q: want %s, %s, %s or %s", name, r.Outcome, Pass, Fail, Timeout, Cut)
	}
	if r.StillS < 0 || r.TravelM < 0 {
		return r, fmt.Errorf("%s: still_s %g, travel_m %g: a time to still or a travel is never negative", name, r.StillS, r.TravelM)
	}
	return r, nil
}

// LoadRun reads one run record file (see ParseRun).
func LoadRun(path string) (Run, error) {
	b, err := readBounded(path, maxRunFile)
	if err != nil {
		return Run{}, err
	}
	return ParseRun(path, b)
}

func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes, more than a campaign file holds", path, max)
	}
	return b, nil
}

// loadPlanForReport reads a campaign folder's plan.yaml with the runner's parser (ParsePlan: the same
// validation as before the campaign ran); errors name the file.
func loadPlanForReport(path string) (Plan, error) {
	b, err := readBounded(path, 1<<20)
	if err != nil {
		return Plan{}, err
	}
	return parsePlanForReport(path, b)
}

// parsePlanForReport is loadPlanForReport on the file's bytes; path goes into errors.
func parsePlanForReport(path string, b []byte) (Plan, error) {
	p, err := ParsePlan(b)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %w", path, err)
	}
	if p.Version == 0 {
		p.Version = 1
	}
	return *p, nil
}

// runsPerCell is the plan's n: N when given, else SuccessRunN(R, C).
func (p Plan) runsPerCell() int {
	if p.N > 0 {
		return p.N
	}
	return SuccessRunN(p.R, p.C)
}

// LoadCampaign reads a campaign folder (plan.yaml, campaign.json, runs/*.json), or several: the shards of one
// campaign, merged. Shards must hold the same plan, and no slot may be in two of them.
func LoadCampaign(dirs ...string) (*Campaign, error) {
	if len(dirs) == 0 {
		return nil, errors.New("which campaign folders?")
	}
	c := &Campaign{}
	seenDir := map[string]string{}
	bySeq := map[int]FiledRun{}     // the counted (non-CUT) record of each slot
	folderOfSeq := map[int]string{} // which folder holds a slot
	seqOf := map[[2]string]int{}    // (cell, rep) -> seq
	for i, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		if prev, ok := seenDir[filepath.Clean(abs)]; ok {
			return nil, fmt.Errorf("%s: the same folder as %s, given twice", dir, prev)
		}
		seenDir[filepath.Clean(abs)] = dir
		p, err := loadPlanForReport(filepath.Join(dir, "plan.yaml"))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%s: no plan.yaml: not a campaign folder", dir)
			}
			return nil, err
		}
		if err := checkCampaignJSON(filepath.Join(dir, "campaign.json")); err != nil {
			return nil, err
		}
		if i == 0 {
			c.Plan = p
		} else if diff := planDiff(c.Plan, p); diff != "" {
			return nil, fmt.Errorf("%s is not a shard of %s's campaign: the plans differ in %s", dir, dirs[0], diff)
		}
		c.Folders = append(c.Folders, dir)
		files, err := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(dir, "runs")); err != nil && len(files) == 0 {
			return nil, fmt.Errorf("%s: no runs folder: not a campaign folder (%v)", dir, err)
		}
		cells := map[string]Cell{}
		for _, cell := range c.Plan.Cells {
			cells[cell.ID()] = cell
		}
		n := c.Plan.runsPerCell()
		for _, f := range files {
			r, err := LoadRun(f)
			if err != nil {
				return nil, err
			}
			rel, _ := filepath.Rel(dir, f)
			rec := FiledRun{Run: r, Folder: dir, File: filepath.ToSlash(rel)}
			if _, ok := cells[r.Cell]; !ok {
				return nil, fmt.Errorf("%s: cell %q is not in the plan (its cells: %s)", f, r.Cell, cellList(c.Plan))
			}
			if r.Rep > n {
				return nil, fmt.Errorf("%s: rep %d of a cell the plan runs %d times", f, r.Rep, n)
			}
			if other, ok := folderOfSeq[r.Seq]; ok && other != dir {
				return nil, fmt.Errorf("%s: slot %d is also in %s: shards never share a slot (the same shard given twice, or shards of different splits)", f, r.Seq, other)
			}
			folderOfSeq[r.Seq] = dir
			k := [2]string{r.Cell, fmt.Sprint(r.Rep)}
			if s, ok := seqOf[k]; ok && s != r.Seq {
				return nil, fmt.Errorf("%s: %s rep %d is slot %d here and slot %d in another record", f, r.Cell, r.Rep, r.Seq, s)
			}
			seqOf[k] = r.Seq
			if r.Outcome != Cut {
				if prev, ok := bySeq[r.Seq]; ok {
					return nil, fmt.Errorf("%s: slot %d was run to its end twice (also %s)", f, r.Seq, filepath.Join(prev.Folder, prev.File))
				}
				bySeq[r.Seq] = rec
			}
			c.Records = append(c.Records, rec)
		}
	}
	sort.SliceStable(c.Records, func(i, j int) bool {
		a, b := c.Records[i], c.Records[j]
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		if (a.Outcome == Cut) != (b.Outcome == Cut) {
			return a.Outcome == Cut
		}
		return a.Start.Before(b.Start)
	})
	return c, nil
}

// checkCampaignJSON refuses a folder written by a newer format; the file's other fields are the runner's.
func checkCampaignJSON(path string) error {
	b, err := readBounded(path, 16<<20)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%s: not a campaign's state: %w", path, err)
	}
	if n, ok := v["version"].(float64); ok && n > Version {
		return fmt.Errorf("%s: folder version %g is newer than this stopproof's %d: report it with a newer stopproof", path, n, Version)
	}
	return nil
}

// planDiff names the fields in which two plans differ ("" when the same).
func planDiff(a, b Plan) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var d []string
	for i := 0; i < va.NumField(); i++ {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			d = append(d, strings.ToLower(va.Type().Field(i).Name))
		}
	}
	return strings.Join(d, ", ")
}

func cellList(p Plan) string {
	var s []string
	for _, c := range p.Cells {
		s = append(s, c.ID())
	}
	return strings.Join(s, ", ")
}
