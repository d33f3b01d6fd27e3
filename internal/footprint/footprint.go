package footprint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rosorin/rosorin/internal/procfs"
)

// Proc is one process's counters at one instant.
type Proc struct {
	PID  int
	Comm string
	// Ticks is user + kernel CPU time in clock ticks (USER_HZ, 100 on Linux), of all its threads, living and
	// exited.
	Ticks uint64
	// Switches is the voluntary + involuntary context switches of its living threads (/proc/PID/task/*/status):
	// each is one wake-up of a thread. /proc/PID/status alone counts only the main thread.
	Switches uint64
	// RSSKB is VmRSS; AnonKB is RssAnon (the Go heap, stacks and runtime data, not the binary's mapped text).
	RSSKB, AnonKB uint64
	// PSSKB is the proportional set size (/proc/PID/smaps_rollup): pages shared with other processes (the
	// three processes of rosorin-base run are one binary) count in part, so the PSS of a tree adds up to what
	// it takes from the machine, where RSS counts the shared text once per process. 0 when unreadable.
	PSSKB uint64
	// FDs is the count of open file descriptors.
	FDs int
}

// Tree reads root and every descendant of it, in pid order.
func Tree(root int) ([]Proc, error) {
	pids, err := descendants(root)
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(pids)+1)
	for _, pid := range append([]int{root}, pids...) {
		p, err := Read(pid)
		if err != nil {
			if pid == root {
				return nil, err
			}
			continue // exited between the listing and the read
		}
		out = append(out, p)
	}
	return out, nil
}

// descendants lists the pids whose parent chain reaches root.
func descendants(root int) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, procfs.ErrNoProc
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procfs.ReadStat(pid)
		if err != nil {
			continue
		}
		parent[pid] = st.PPID
	}
	var out []int
	for pid := range parent {
		for p, n := parent[pid], 0; p > 1 && n < 64; p, n = parent[p], n+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// Read reads one process's counters.
func Read(pid int) (Proc, error) {
	st, err := procfs.ReadStat(pid)
	if err != nil {
		return Proc{}, err
	}
	if !st.Alive() {
		return Proc{}, fmt.Errorf("pid %d has exited (state %c)", pid, st.State)
	}
	p := Proc{PID: pid, Comm: procfs.Comm(pid), Ticks: st.UTime + st.STime}
	base := "/proc/" + strconv.Itoa(pid)
	status, err := os.ReadFile(base + "/status")
	if err != nil {
		return Proc{}, err
	}
	p.RSSKB, p.AnonKB = statusKB(status, "VmRSS:"), statusKB(status, "RssAnon:")
	if b, err := os.ReadFile(base + "/smaps_rollup"); err == nil {
		p.PSSKB = statusKB(b, "Pss:")
	}
	tasks, err := os.ReadDir(base + "/task")
	if err != nil {
		return Proc{}, err
	}
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(base, "task", t.Name(), "status"))
		if err != nil {
			continue // the thread exited
		}
		p.Switches += statusKB(b, "voluntary_ctxt_switches:") + statusKB(b, "nonvoluntary_ctxt_switches:")
	}
	fds, err := os.ReadDir(base + "/fd")
	if err != nil {
		return Proc{}, err
	}
	p.FDs = len(fds)
	return p, nil
}

// statusKB is the first number after key in a /proc status file (kB for memory lines), 0 if absent.
func statusKB(b []byte, key string) uint64 {
	s := string(b)
	i := strings.Index(s, "\n"+key)
	if i < 0 {
		if !strings.HasPrefix(s, key) {
			return 0
		}
	} else {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, key)
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		s = s[:j]
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseUint(f[0], 10, 64)
	return n
}

// Usage is one process's use over a window.
type Usage struct {
	Role      string
	PID       int
	CPUPct    float64 // % of one core
	WakeupsPS float64 // context switches per second
	RSSMB     float64 // the largest VmRSS seen
	AnonMB    float64 // the largest RssAnon seen
	PSSMB     float64 // the largest PSS seen
	FDs       int
}

// ErrChanged is returned when the process set changed inside the window (a child died and restarted).
var ErrChanged = errors.New("footprint: the set of processes changed during the window")

// Between computes each process's use from two readings seconds apart; peak holds the largest memory seen
// per pid during the window (nil: the readings' own). role names a process.
func Between(a, b []Proc, seconds float64, peak map[int]Proc, role func(Proc) string) ([]Usage, error) {
	if len(a) != len(b) {
		return nil, fmt.Errorf("%w: %d then %d processes", ErrChanged, len(a), len(b))
	}
	out := make([]Usage, 0, len(a))
	for i := range a {
		if a[i].PID != b[i].PID {
			return nil, fmt.Errorf("%w: pid %d then %d", ErrChanged, a[i].PID, b[i].PID)
		}
		m := b[i]
		if pk, ok := peak[m.PID]; ok {
			m.RSSKB, m.AnonKB, m.PSSKB = max(m.RSSKB, pk.RSSKB), max(m.AnonKB, pk.AnonKB), max(m.PSSKB, pk.PSSKB)
		}
		out = append(out, Usage{
			Role: role(b[i]), PID: b[i].PID,
			CPUPct:    float64(b[i].Ticks-a[i].Ticks) / 100 / seconds * 100,
			WakeupsPS: float64(int64(b[i].Switches)-int64(a[i].Switches)) / seconds,
			RSSMB:     float64(m.RSSKB) / 1024, AnonMB: float64(m.AnonKB) / 1024, PSSMB: float64(m.PSSKB) / 1024, FDs: b[i].FDs,
		})
	}
	return out, nil
}
