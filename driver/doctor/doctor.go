package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/rosorin/rosorin/clock"
)

// Status is a check's verdict. The order is severity: Skip < Pass < Warn < Fail.
type Status int

const (
	Skip Status = iota // not applicable here (no LiDAR configured, no systemd)
	Pass
	Warn
	Fail
)

var statusNames = [...]string{"SKIP", "PASS", "WARN", "FAIL"}

func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// MarshalText writes the name ("PASS").
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, n := range statusNames {
		if string(b) == n {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("doctor: unknown status %q", b)
}

// Check is one line of the report.
type Check struct {
	Area     string `json:"area"` // "board", "lidar", "service", "ros2", "system"
	Name     string `json:"name"`
	Status   Status `json:"status"`
	Measured string `json:"measured"`
	Fix      string `json:"fix,omitempty"`
}

// Report is the doctor's finding, in the order the checks ran.
type Report struct {
	Host   string    `json:"host"`
	Time   time.Time `json:"time"`
	Checks []Check   `json:"checks"`
}

// Worst returns the most severe status (Skip for an empty report).
func (r *Report) Worst() Status {
	w := Skip
	for _, c := range r.Checks {
		w = max(w, c.Status)
	}
	return w
}

// ExitCode is 1 when a check failed, else 0.
func (r *Report) ExitCode() int {
	if r.Worst() == Fail {
		return 1
	}
	return 0
}

// Find returns the check named name, or nil.
func (r *Report) Find(name string) *Check {
	for i := range r.Checks {
		if r.Checks[i].Name == name {
			return &r.Checks[i]
		}
	}
	return nil
}

func (r *Report) add(area, name string, s Status, measured, fix string) {
	if s == Pass {
		fix = ""
	}
	r.Checks = append(r.Checks, Check{Area: area, Name: name, Status: s, Measured: measured, Fix: fix})
}

// JSON writes the report as one indented JSON object.
func (r *Report) JSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// Text writes a table (status, check, measured, fix) and a summary line.
func (r *Report) Text(w io.Writer) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
	)
	t.Header("status", "check", "measured", "fix")
	for _, c := range r.Checks {
		if err := t.Append([]string{c.Status.String(), c.Name, c.Measured, c.Fix}); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	n := map[Status]int{}
	for _, c := range r.Checks {
		n[c.Status]++
	}
	_, err := fmt.Fprintf(w, "%s: %d PASS, %d WARN, %d FAIL, %d SKIP\n", r.Worst(), n[Pass], n[Warn], n[Fail], n[Skip])
	return err
}

// Options says what to look at. The zero value of a field takes the default named beside it.
type Options struct {
	Device   string        // the board's serial device (required; the driver's default is /dev/ttyACM0)
	Lidar    string        // the LiDAR's device ("" = no LiDAR: its checks are skipped)
	Socket   string        // the driver's control socket ("" = the service checks are skipped)
	Listen   time.Duration // how long to listen to a free port (2 s)
	DiskDirs []string      // directories whose free space matters (the state and capture folders)
	// BridgeBinary is the ROS 2 bridge's executable name or path ("" = the ROS 2 checks are skipped).
	BridgeBinary string
	// Unit is the systemd unit of the service ("" = not checked).
	Unit string

	Clock clock.Clock // clock.Real{}
	// Root is where /sys and /dev are looked up ("" = "/"): tests point it at a made-up sysfs.
	Root string
}

// Run runs every check and returns the report. It never writes to the board.
func Run(o Options) *Report {
	if o.Listen <= 0 {
		o.Listen = 2 * time.Second
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Root == "" {
		o.Root = "/"
	}
	host, _ := os.Hostname()
	r := &Report{Host: host, Time: o.Clock.Now()}
	held := checkBoardDevice(r, o)
	checkBoardTalking(r, o, held)
	checkLidar(r, o)
	checkService(r, o)
	checkROS2(r, o)
	checkSystem(r, o)
	return r
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
