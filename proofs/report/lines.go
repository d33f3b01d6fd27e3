package report

import (
	"fmt"
	"math"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/stand"
)

// Key names a result line across runs: path, motion and whether it is the release line.
type Key struct {
	Path    string `json:"path"`
	Motion  string `json:"motion"`
	Release bool   `json:"release,omitempty"`
}

func (k Key) String() string {
	s := k.Path + " " + k.Motion
	if k.Release {
		s += " (release)"
	}
	return s
}

// KeyOf is a result's key.
func KeyOf(r stand.Result) Key { return Key{string(r.Path), r.Motion, r.Release} }

// cell is a line's table cell: the stop time for a pass, the outcome otherwise.
func cell(r stand.Result) string {
	switch {
	case r.Outcome == vibration.Pass && !math.IsNaN(r.StopS):
		return fmt.Sprintf("%.2f s PASS", r.StopS)
	case r.Outcome == vibration.Pass:
		return "PASS"
	}
	return r.Outcome.String()
}

// motions lists the runs' motions in first-seen order, and rows the lines' (path, release) rows.
func layout(rep *stand.Report) (motions []string, rows []Key) {
	seenM, seenR := map[string]bool{}, map[Key]bool{}
	for _, r := range rep.Results {
		if r.Motion != "" && !seenM[r.Motion] {
			seenM[r.Motion] = true
			motions = append(motions, r.Motion)
		}
		k := Key{Path: string(r.Path), Release: r.Release}
		if !seenR[k] {
			seenR[k] = true
			rows = append(rows, k)
		}
	}
	// The proof table's order (fwd 0.2, fwd 0.35, rot 1.0), then any other in first-seen order.
	var ordered []string
	for _, m := range stand.Paths.Motions() {
		if seenM[m.Name] {
			ordered = append(ordered, m.Name)
			delete(seenM, m.Name)
		}
	}
	for _, m := range motions {
		if seenM[m] {
			ordered = append(ordered, m)
		}
	}
	return ordered, rows
}

// rowLabel is the label of a row: the result's name without its motion.
func rowLabel(rep *stand.Report, k Key) string {
	for _, r := range rep.Results {
		if string(r.Path) == k.Path && r.Release == k.Release {
			if r.Release {
				return r.Name
			}
			if n := len(r.Motion); n > 0 && len(r.Name) > n+2 && r.Name[len(r.Name)-n:] == r.Motion {
				return r.Name[:len(r.Name)-n-2]
			}
			return r.Name
		}
	}
	return k.Path
}
