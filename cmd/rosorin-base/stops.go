package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/service"
	"github.com/rosorin/rosorin/driver/stoplog"
)

// Exit statuses of `rosorin-base stops` (its --help says them too).
const (
	stopsExitBadRecords = 1 // the log has bad records: named on stderr, every good one printed
	stopsExitCannot     = 2 // bad flags, a log folder that cannot be listed, a --follow without a driver
)

func stopsCommand() *cli.Command {
	return &cli.Command{
		Name:  "stops",
		Usage: "print the stops the driver timed (its stop log in the state directory; works with the driver stopped); --follow streams new ones from the control socket",
		Description: `Reads <state-dir>/stops/ (the driver's stop log, driver/stoplog) read-only, oldest first, and prints one
row per stop: seq, wall time (local), kind, direction, speed at the trigger, time to still, travel, the
judge's confidence, the limit it was held against, the monitor's level for it and the driver's reason.
--json prints JSON lines instead: one api.StopRecord per line, the line the control socket's stops
stream carries (jq -s makes an array of them).

Filters: --kind estop,deadman (any of), --since 2h (trigger within the last 2 hours, wall time),
--last 20 (the last 20 after the other filters).

--follow then keeps printing each new stop as the driver publishes it (GET /v1/stops?follow=1 on
--socket), in the same format; a stop already printed from the log is not printed again (by seq).

A torn or damaged log: every bad record is named on stderr and every good one is still printed.

Exit status: 0 every record good; 1 the log has bad records (named on stderr, the good ones printed);
2 nothing could be read (bad flags, a log folder that cannot be listed, --follow without a driver).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "state-dir", Usage: "the driver's state folder, whose stops/ holds the log (default $XDG_STATE_HOME/rosorin)"},
			&cli.BoolFlag{Name: "json", Usage: "JSON lines: one stop record per line"},
			&cli.StringSliceFlag{Name: "kind", Usage: "only these stop kinds (deadman, estop, disable, takeover, scangate, contact, gamepad, board, kill); repeat or join with commas"},
			&cli.DurationFlag{Name: "since", Usage: "only stops triggered within this `DURATION` before now (wall time)"},
			&cli.IntFlag{Name: "last", Usage: "only the last `N` stops (after the other filters)"},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "then print each new stop as the driver publishes it (control socket)"},
			socketFlag(),
		},
		Action: runStops,
	}
}

// stopsFilter is the command's filters.
type stopsFilter struct {
	kinds map[string]bool // nil: any
	after time.Time       // zero: any
	last  int             // 0: all
}

func (f stopsFilter) keep(r api.StopRecord) bool {
	if f.kinds != nil && !f.kinds[r.Kind] {
		return false
	}
	return f.after.IsZero() || !r.Wall.Before(f.after)
}

func (f stopsFilter) apply(recs []api.StopRecord) []api.StopRecord {
	var out []api.StopRecord
	for _, r := range recs {
		if f.keep(r) {
			out = append(out, r)
		}
	}
	if f.last > 0 && len(out) > f.last {
		out = out[len(out)-f.last:]
	}
	return out
}

var stopKinds = []string{api.StopDeadman, api.StopEStop, api.StopDisable, api.StopTakeOver, api.StopScanGate,
	api.StopContact, api.StopGamepad, api.StopBoard, api.StopKill}

func runStops(c *cli.Context) error {
	if c.NArg() > 0 {
		return cli.Exit("rosorin-base stops: no arguments expected (flags only), got "+c.Args().First(), stopsExitCannot)
	}
	var f stopsFilter
	for _, k := range c.StringSlice("kind") {
		for _, k := range strings.Split(k, ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if !slices.Contains(stopKinds, k) {
				return cli.Exit(fmt.Sprintf("rosorin-base stops: --kind %q: not a stop kind (%s)", k, strings.Join(stopKinds, ", ")), stopsExitCannot)
			}
			if f.kinds == nil {
				f.kinds = map[string]bool{}
			}
			f.kinds[k] = true
		}
	}
	if d := c.Duration("since"); d < 0 {
		return cli.Exit("rosorin-base stops: --since must be positive (e.g. 2h)", stopsExitCannot)
	} else if d > 0 {
		f.after = time.Now().Add(-d)
	}
	if f.last = c.Int("last"); f.last < 0 {
		return cli.Exit("rosorin-base stops: --last must be positive", stopsExitCannot)
	}
	dir := c.String("state-dir")
	if dir == "" {
		dir = driver.DefaultStateDir()
	}
	out, errw := c.App.Writer, c.App.ErrWriter
	asJSON, follow := c.Bool("json"), c.Bool("follow")
	code := 0
	// readLog reads the log and names its bad records on stderr; with --follow a log that cannot be read is
	// said and the driver followed alone.
	readLog := func() ([]api.StopRecord, error) {
		recs, rec, err := stoplog.Read(dir)
		if err != nil {
			if !follow {
				return nil, err
			}
			fmt.Fprintf(errw, "rosorin-base stops: %v; following the driver only\n", err)
		}
		for _, b := range rec.Bad {
			fmt.Fprintln(errw, "bad record skipped:", b.Error())
		}
		if len(rec.Bad) > 0 {
			fmt.Fprintf(errw, "rosorin-base stops: %d bad record(s) skipped, %d good printed\n", len(rec.Bad), rec.Good)
			code = stopsExitBadRecords
		}
		return recs, nil
	}
	// show prints the log's records (a table with its header) or one live record (a row without it).
	var showErr error
	show := func(recs []api.StopRecord, live bool) error {
		shown := f.apply(recs)
		switch {
		case live && len(shown) == 0:
			return nil // filtered out
		case asJSON:
			showErr = writeStopsJSON(out, shown)
		case live:
			showErr = writeStopsRows(out, shown, false)
		default:
			showErr = writeStopsTable(out, shown, !follow && len(recs) == 0, dir)
		}
		return showErr
	}
	if !follow {
		recs, err := readLog()
		if err != nil {
			return cli.Exit(fmt.Sprintf("rosorin-base stops: %v (state directory %s; pass --state-dir)", err, dir), stopsExitCannot)
		}
		if err := show(recs, false); err != nil {
			return err
		}
		return exitCode(code)
	}

	// --follow: the stream is subscribed before the log is read, so no stop falls between the two, and a
	// stop already printed from the log is not printed again (by seq).
	ctx, stop := service.SignalContext(c.Context)
	defer stop()
	err := api.NewClient(c.String("socket")).FollowStopHistory(ctx, readLog, show)
	if showErr != nil {
		return showErr
	}
	if err = quietCancel(err); err != nil {
		return cli.Exit("rosorin-base stops --follow: "+err.Error(), stopsExitCannot)
	}
	return exitCode(code)
}

func exitCode(code int) error {
	if code == 0 {
		return nil
	}
	return cli.Exit("", code)
}

func writeStopsJSON(w io.Writer, recs []api.StopRecord) error {
	enc := json.NewEncoder(w)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

// writeStopsTable writes the table (a header even when empty, and a line saying the log is empty).
func writeStopsTable(w io.Writer, recs []api.StopRecord, noLog bool, dir string) error {
	if err := writeStopsRows(w, recs, true); err != nil {
		return err
	}
	if noLog {
		_, err := fmt.Fprintf(w, "no stop in the log of %s\n", dir)
		return err
	}
	return nil
}

// stopsHeader are the table's columns.
var stopsHeader = []string{"seq", "wall time", "kind", "direction", "speed m/s", "still s", "travel m", "confidence", "limit", "level", "reason"}

// writeStopsRows renders recs as a table (with its header when header is set: a followed stop is one more
// table of one row without it).
func writeStopsRows(w io.Writer, recs []api.StopRecord, header bool) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
	)
	if header {
		t.Header(stopsHeader)
	}
	for _, r := range recs {
		if err := t.Append(stopRow(r)); err != nil {
			return err
		}
	}
	return t.Render()
}

// stopRow is one record's cells, in stopsHeader's order.
func stopRow(r api.StopRecord) []string {
	opt := func(v *float64, prec int) string {
		if v == nil {
			return "-"
		}
		return strconv.FormatFloat(*v, 'f', prec, 64)
	}
	level := r.Level
	if level == "" {
		level = "-" // not counted
	}
	return []string{strconv.FormatUint(r.Seq, 10), r.Wall.Local().Format("2006-01-02 15:04:05.000"), r.Kind, r.Direction,
		strconv.FormatFloat(r.Speed, 'f', 2, 64), opt(r.StillS, 3), opt(r.TravelM, 3), r.Confidence, stopLimitText(r.Limit), level, r.Reason}
}

// stopLimitText is a limit in a few characters: "0.45 s", "0.45 s 0.10 m", "-" for none.
func stopLimitText(l *api.StopLimit) string {
	if l == nil {
		return "-"
	}
	var parts []string
	if l.MaxStillS > 0 {
		parts = append(parts, strconv.FormatFloat(l.MaxStillS, 'f', 2, 64)+" s")
	}
	if l.MaxTravelM > 0 {
		parts = append(parts, strconv.FormatFloat(l.MaxTravelM, 'f', 2, 64)+" m")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
