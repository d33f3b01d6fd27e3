package stoplog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rosorin/rosorin/driver/api"
)

// SubDir is the stop log's folder in the state directory.
const SubDir = "stops"

// segment file names: stops-000001.jsonl, numbered from 1; the width grows past 999999.
const (
	segPrefix = "stops-"
	segSuffix = ".jsonl"
)

func segName(n int) string { return fmt.Sprintf("%s%06d%s", segPrefix, n, segSuffix) }

// Recovery is what a scan of the log found: the good records counted, every bad one named.
type Recovery struct {
	Segments int    // segment files found
	Good     int    // good records, Repeated not counted
	LastSeq  uint64 // the highest seq of a good record (0: none)
	// Bad names every line skipped, in file order: torn, damaged or foreign. Never fatal.
	Bad []BadRecord
	// Cut is how many bytes of a torn last line Open cut off the newest segment (Read never cuts).
	Cut int64
	// Repeated counts good records whose seq was already read: the retry of a batch whose fsync failed after
	// its write went through (doc.go). Readers keep the first.
	Repeated int
}

// Err is nil when every line was good, else an error naming the bad ones (the first three).
func (r Recovery) Err() error {
	if len(r.Bad) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "stop log: %d bad record(s) skipped, %d good kept", len(r.Bad), r.Good)
	for i, bad := range r.Bad {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(r.Bad)-3)
			break
		}
		b.WriteString("; ")
		b.WriteString(bad.Error())
	}
	return errors.New(b.String())
}

// segments lists the segment numbers in dir, oldest first. Other files are left alone.
func segments(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nums []int
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, segPrefix) || !strings.HasSuffix(name, segSuffix) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, segPrefix), segSuffix))
		if err != nil || n <= 0 {
			continue
		}
		nums = append(nums, n)
	}
	slices.Sort(nums)
	return nums, nil
}

// scan reads every segment of dir (the stops folder) in order. keep receives each good record (nil: only
// count). With cut, a torn last line of the newest segment is cut off and the file fsynced. It fails only
// when the folder cannot be listed; a segment that cannot be read is named in Bad.
func scan(dir string, cut bool, keep func(api.StopRecord)) (Recovery, []int, int64, error) {
	var r Recovery
	nums, err := segments(dir)
	if err != nil {
		return r, nil, 0, err
	}
	r.Segments = len(nums)
	var newestSize int64
	for i, n := range nums {
		path := filepath.Join(dir, segName(n))
		b, err := os.ReadFile(path)
		if err != nil {
			r.Bad = append(r.Bad, BadRecord{File: path, Line: 0, Why: "cannot read the segment: " + err.Error()})
			continue
		}
		s := ParseSegment(path, b)
		for _, rec := range s.Records {
			if rec.Seq <= r.LastSeq {
				r.Repeated++
				continue
			}
			r.LastSeq = rec.Seq
			r.Good++
			if keep != nil {
				keep(rec)
			}
		}
		r.Bad = append(r.Bad, s.Bad...)
		newest := i == len(nums)-1
		if newest {
			newestSize = int64(len(b))
		}
		if cut && newest && s.End < int64(len(b)) {
			if err := truncate(path, s.End); err != nil {
				r.Bad = append(r.Bad, BadRecord{File: path, Offset: s.End, Why: "cannot cut the torn last line: " + err.Error()})
			} else {
				r.Cut = int64(len(b)) - s.End
				newestSize = s.End
			}
		}
	}
	return r, nums, newestSize, nil
}

func truncate(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Read returns every good record of the stop log in stateDir, oldest first, and what it skipped. It only
// reads: a torn last line is skipped, never cut (a driver may be writing it). A missing log is no records
// and no error; only a folder that cannot be listed is an error.
func Read(stateDir string) ([]api.StopRecord, Recovery, error) {
	var recs []api.StopRecord
	r, _, _, err := scan(filepath.Join(stateDir, SubDir), false, func(rec api.StopRecord) { recs = append(recs, rec) })
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Recovery{}, nil
	}
	if err != nil {
		return nil, r, fmt.Errorf("stop log: %w", err)
	}
	return recs, r, nil
}
