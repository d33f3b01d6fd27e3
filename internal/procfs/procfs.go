// Package procfs reads the few /proc facts the toolkit decides on: a process's parent, state, start time and
// name. One parser serves the driver's publisher and scan-sender rules and the tests that watch processes.
//
// Spec: proc(5), /proc/PID/stat and /proc/PID/comm. The command name (field 2) is in parentheses and may hold
// spaces and parentheses, so fields are read after the last ')'.
package procfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Stat is what /proc/PID/stat says about a process.
type Stat struct {
	PID   int
	Comm  string // field 2, without the parentheses (truncated to 15 bytes by the kernel)
	State byte   // field 3: R, S, D, Z, X, ...
	PPID  int    // field 4
	// UTime and STime are fields 14 and 15: CPU time in user and kernel mode, in clock ticks (USER_HZ,
	// 100 on Linux).
	UTime, STime uint64
	// Start is field 22, the start time in clock ticks since boot: it tells a process from a later one that
	// reuses its pid.
	Start uint64
}

// Alive reports whether the state is that of a process that has not exited (zombies and dead ones have).
func (s Stat) Alive() bool { return s.State != 'Z' && s.State != 'X' }

// ErrNoProc is returned where /proc cannot be read (not Linux, or not mounted).
var ErrNoProc = errors.New("procfs: /proc is not available")

// ReadStat reads /proc/PID/stat.
func ReadStat(pid int) (Stat, error) {
	if pid <= 0 {
		return Stat{}, fmt.Errorf("procfs: pid %d", pid)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Stat("/proc/self/stat"); serr != nil {
				return Stat{}, ErrNoProc
			}
		}
		return Stat{}, err
	}
	return ParseStat(b)
}

// ParseStat parses the contents of a /proc/PID/stat file.
func ParseStat(b []byte) (Stat, error) {
	s := string(b)
	open := strings.IndexByte(s, '(')
	close := strings.LastIndexByte(s, ')')
	if open < 1 || close < open {
		return Stat{}, fmt.Errorf("procfs: stat without a (comm): %.40q", s)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return Stat{}, fmt.Errorf("procfs: stat pid: %w", err)
	}
	if pid <= 0 {
		return Stat{}, fmt.Errorf("procfs: stat pid %d: a process id is positive", pid)
	}
	f := strings.Fields(s[close+1:])
	// f[0] is field 3 (state), f[1] field 4 (ppid), f[19] field 22 (starttime).
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("procfs: stat of pid %d has %d fields after the name, want at least 20", pid, len(f))
	}
	if c := f[0][0]; !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
		return Stat{}, fmt.Errorf("procfs: stat of pid %d: state %q is not a letter", pid, c)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil || ppid < 0 {
		return Stat{}, fmt.Errorf("procfs: stat of pid %d: ppid %q: want a number >= 0", pid, f[1])
	}
	var num [3]uint64 // utime, stime, starttime
	for i, k := range []int{11, 12, 19} {
		if num[i], err = strconv.ParseUint(f[k], 10, 64); err != nil {
			return Stat{}, fmt.Errorf("procfs: stat field %d: %w", k+3, err)
		}
	}
	return Stat{PID: pid, Comm: s[open+1 : close], State: f[0][0], PPID: ppid, UTime: num[0], STime: num[1], Start: num[2]}, nil
}

// Comm returns the process name (/proc/PID/comm), or "" when it cannot be read.
func Comm(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
