package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/stand"
)

// ProofFile is one proof run to report on, as read from its file: a --json record or an MCAP recording.
type ProofFile struct {
	Name   string // the file's base name
	Report *stand.Report
	// Rejudged is set for a recording: the lines were judged again from it (Differences says whether the
	// re-judge agreed with the live run).
	Rejudged *stand.Rejudged
}

// maxRecordFile bounds a JSON record read into memory.
const maxRecordFile = 256 << 20

// Load reads a run: a proof's --json record, or a recording (MCAP) re-judged through the live judges.
func Load(path string) (ProofFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return ProofFile{}, err
	}
	return Parse(filepath.Base(path), b)
}

// Parse reads a run from its bytes (see Load).
func Parse(name string, b []byte) (ProofFile, error) {
	run := ProofFile{Name: name}
	if mcapfile.IsMCAP(b) {
		f, err := proofrec.Read(bytes.NewReader(b))
		if err != nil {
			return run, fmt.Errorf("%s: %w", name, err)
		}
		rj, err := stand.Rejudge(f)
		if err != nil {
			return run, fmt.Errorf("%s: %w", name, err)
		}
		run.Report, run.Rejudged = rj.Report, rj
		return run, nil
	}
	if len(b) > maxRecordFile {
		return run, fmt.Errorf("%s: %d bytes is no proof record", name, len(b))
	}
	rep, err := stand.ReadReport(b)
	if err != nil {
		return run, fmt.Errorf("%s: not a stop proof record (--json of stopproof prove) nor a recording: %w", name, err)
	}
	run.Report = rep
	return run, nil
}
