package servicestops_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/reportdoc"
	"github.com/rosorin/rosorin/proofs/servicestops"
)

// The synthetic stop log and campaigns the tests share.

var t0 = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

func fp(x float64) *float64 { return &x }

// stop is one record: seq, kind and level, with a time to still and a travel (nil: not measured), at t0 plus
// seq minutes.
func stop(seq uint64, kind, level string, still, travel *float64) api.StopRecord {
	return api.StopRecord{Seq: seq, Kind: kind, Level: level, StillS: still, TravelM: travel,
		Wall: t0.Add(time.Duration(seq) * time.Minute), Speed: 0.35, Direction: "fwd", Confidence: api.ConfidenceOK}
}

// cell is a campaign cell of path at speed in dir with its still bound and, when travel is not nil, its travel
// bound.
func cell(path, dir string, speed, still float64, travel *float64) campaign.CellResult {
	c := campaign.CellResult{Cell: campaign.Cell{Path: path, Speed: speed, Direction: dir}, Still: campaign.Dist{Unit: "s", Bound: campaign.Num(still)}}
	if travel != nil {
		c.Travel = &campaign.Dist{Unit: "m", Bound: campaign.Num(*travel)}
	}
	return c
}

func summary(name string, start time.Time, cells ...campaign.CellResult) *campaign.Summary {
	return &campaign.Summary{Kind: campaign.SummaryKind, Name: name, Start: start, Cells: cells}
}

// mixedRecs: three kinds, first seen out of name order; every level; stops with and without values. A stop
// without a Level is not counted, yet its values count for the worst figures.
func mixedRecs() []api.StopRecord {
	recs := []api.StopRecord{
		stop(1, api.StopEStop, api.StopLevelOK, fp(0.20), fp(0.02)),
		stop(2, api.StopEStop, api.StopLevelWarn, fp(0.50), fp(0.05)),
		stop(3, api.StopDeadman, "", nil, nil),
		stop(4, api.StopEStop, api.StopLevelError, fp(0.48), nil),
		stop(5, api.StopScanGate, "", fp(0.90), fp(0.10)),
		stop(6, api.StopEStop, "", fp(0.70), fp(0.01)),
		stop(7, api.StopDeadman, api.StopLevelOK, fp(0.30), nil),
		stop(8, api.StopContact, "", nil, nil),
	}
	recs[0].Limit = &api.StopLimit{Kind: api.StopEStop, MaxStillS: 0.45}
	recs[0].Reason = "estop request from pid 812 (teleop)"
	return recs
}

// oldSum has estop and deadman cells (deadman without a travel); newSum, a day before t0, estop in two
// directions (one without a travel) and a contact turn cell with no bound (NaN: too few runs).
func oldSum() *campaign.Summary {
	return summary("old", t0.AddDate(0, 0, -30),
		cell(api.StopEStop, "", 0.2, 0.40, fp(0.03)),
		cell(api.StopDeadman, "", 0.2, 0.60, nil))
}

func newSum() *campaign.Summary {
	return summary("new", t0.AddDate(0, 0, -1),
		cell(api.StopEStop, "", 0.2, 0.38, fp(0.025)),
		cell("gamepad", "", 0.2, 0.30, nil),
		cell(api.StopEStop, "back", 0.35, 0.50, nil),
		cell(api.StopContact, "turn", 1.0, math.NaN(), nil))
}

// same compares floats, NaN equal to NaN.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

type kindCounts struct {
	kind                         string
	count, counted, warn, errors int
	worstStill, worstTravel      float64
	seqs                         []uint64
}

func countsOf(k servicestops.Kind) kindCounts {
	c := kindCounts{kind: k.Kind, count: k.Count, counted: k.Counted, warn: k.Warn, errors: k.Error,
		worstStill: float64(k.WorstStillS), worstTravel: float64(k.WorstTravelM)}
	for _, s := range k.Stops {
		c.seqs = append(c.seqs, s.Seq)
	}
	return c
}

func TestBuildGroupsCountsAndWorst(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		recs []api.StopRecord
		want []kindCounts
	}{
		{"none", nil, nil},
		{"mixed: sorted by kind, stops kept oldest first", mixedRecs(), []kindCounts{
			{api.StopContact, 1, 0, 0, 0, nan, nan, []uint64{8}},
			{api.StopDeadman, 2, 1, 0, 0, 0.30, nan, []uint64{3, 7}},
			{api.StopEStop, 4, 3, 1, 1, 0.70, 0.05, []uint64{1, 2, 4, 6}},
			{api.StopScanGate, 1, 0, 0, 0, 0.90, 0.10, []uint64{5}},
		}},
		{"not counted only", []api.StopRecord{
			stop(1, api.StopKill, "", fp(0.1), nil),
			stop(2, api.StopKill, "", fp(0.2), nil),
		}, []kindCounts{{api.StopKill, 2, 0, 0, 0, 0.2, nan, []uint64{1, 2}}}},
		{"warn and error are counted, ok counted without a flag", []api.StopRecord{
			stop(1, api.StopBoard, api.StopLevelWarn, nil, fp(0.3)),
			stop(2, api.StopBoard, api.StopLevelWarn, nil, fp(0.1)),
			stop(3, api.StopBoard, api.StopLevelError, nil, nil),
			stop(4, api.StopBoard, api.StopLevelOK, nil, nil),
		}, []kindCounts{{api.StopBoard, 4, 4, 2, 1, nan, 0.3, []uint64{1, 2, 3, 4}}}},
		{"worst is the largest, not the last", []api.StopRecord{
			stop(1, api.StopGamepad, api.StopLevelOK, fp(0.9), fp(0.2)),
			stop(2, api.StopGamepad, api.StopLevelOK, nil, nil),
			stop(3, api.StopGamepad, api.StopLevelOK, fp(0.1), fp(0.05)),
		}, []kindCounts{{api.StopGamepad, 3, 3, 0, 0, 0.9, 0.2, []uint64{1, 2, 3}}}},
		{"a zero is a value", []api.StopRecord{
			stop(1, api.StopDisable, api.StopLevelOK, fp(0), fp(0)),
		}, []kindCounts{{api.StopDisable, 1, 1, 0, 0, 0, 0, []uint64{1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := servicestops.Build("log", tc.recs, 0, nil, nil)
			if r.Stops != len(tc.recs) {
				t.Errorf("Stops %d, want %d", r.Stops, len(tc.recs))
			}
			if len(r.Kinds) != len(tc.want) {
				t.Fatalf("%d kinds, want %d: %+v", len(r.Kinds), len(tc.want), r.Kinds)
			}
			for i, k := range r.Kinds {
				got, want := countsOf(k), tc.want[i]
				if got.kind != want.kind || got.count != want.count || got.counted != want.counted || got.warn != want.warn ||
					got.errors != want.errors || !same(got.worstStill, want.worstStill) || !same(got.worstTravel, want.worstTravel) ||
					!reflect.DeepEqual(got.seqs, want.seqs) {
					t.Errorf("kind %d:\n got %+v\nwant %+v", i, got, want)
				}
				if len(k.Bounds) != 0 {
					t.Errorf("kind %s: bounds %+v without a campaign", k.Kind, k.Bounds)
				}
			}
		})
	}
}

func TestBuildCarriesSourceAndBad(t *testing.T) {
	r := servicestops.Build("state/stops", mixedRecs()[:3], 4, nil, nil)
	if r.Source != "state/stops" || r.Bad != 4 || r.Stops != 3 || len(r.Kinds) != 2 {
		t.Fatalf("%+v", r)
	}
}

type boundWant struct {
	campaign, cell string
	speed          float64
	still, travel  float64
}

func TestBuildBounds(t *testing.T) {
	nan := math.NaN()
	newEStop := []boundWant{
		{"new", "estop forward 0.2 m/s", 0.2, 0.38, 0.025},
		{"new", "estop back 0.35 m/s", 0.35, 0.50, nan}, // a cell without a Travel
	}
	oldDeadman := []boundWant{{"old", "deadman forward 0.2 m/s", 0.2, 0.60, nan}}
	newContact := []boundWant{{"new", "contact turn 1 rad/s", 1, nan, nan}} // no bound (NaN) is still the cell's
	for _, tc := range []struct {
		name  string
		sums  []*campaign.Summary
		names []string
		want  map[string][]boundWant // by kind; a kind not named has no bounds
	}{
		{"no campaigns", nil, nil, map[string][]boundWant{}},
		{"oldest first: the newer wins, the older where the newer lacks the path", []*campaign.Summary{oldSum(), newSum()}, nil,
			map[string][]boundWant{api.StopEStop: newEStop, api.StopDeadman: oldDeadman, api.StopContact: newContact}},
		{"newest first: the same", []*campaign.Summary{newSum(), oldSum()}, nil,
			map[string][]boundWant{api.StopEStop: newEStop, api.StopDeadman: oldDeadman, api.StopContact: newContact}},
		{"the older alone", []*campaign.Summary{oldSum()}, nil,
			map[string][]boundWant{
				api.StopEStop:   {{"old", "estop forward 0.2 m/s", 0.2, 0.40, 0.03}},
				api.StopDeadman: oldDeadman}},
		{"names override the summaries' names", []*campaign.Summary{oldSum(), newSum()}, []string{"camp/2025-01", "camp/2025-02.json"},
			map[string][]boundWant{
				api.StopEStop:   {{"camp/2025-02.json", "estop forward 0.2 m/s", 0.2, 0.38, 0.025}, {"camp/2025-02.json", "estop back 0.35 m/s", 0.35, 0.50, nan}},
				api.StopDeadman: {{"camp/2025-01", "deadman forward 0.2 m/s", 0.2, 0.60, nan}},
				api.StopContact: {{"camp/2025-02.json", "contact turn 1 rad/s", 1, nan, nan}}}},
		{"fewer names than summaries: the summary's own name", []*campaign.Summary{oldSum(), newSum()}, []string{"first"},
			map[string][]boundWant{
				api.StopEStop:   newEStop,
				api.StopDeadman: {{"first", "deadman forward 0.2 m/s", 0.2, 0.60, nan}},
				api.StopContact: newContact}},
		{"a campaign with no cells of the path is passed over", []*campaign.Summary{oldSum(), summary("newest", t0, cell("gamepad", "", 0.2, 0.3, nil))}, nil,
			map[string][]boundWant{
				api.StopEStop:   {{"old", "estop forward 0.2 m/s", 0.2, 0.40, 0.03}},
				api.StopDeadman: oldDeadman}},
		{"a campaign after the stops still counts as the newest", []*campaign.Summary{summary("later", t0.AddDate(0, 0, 5), cell(api.StopScanGate, "left", 0.1, 0.2, fp(0.01))), oldSum()}, nil,
			map[string][]boundWant{
				api.StopEStop:    {{"old", "estop forward 0.2 m/s", 0.2, 0.40, 0.03}},
				api.StopDeadman:  oldDeadman,
				api.StopScanGate: {{"later", "scangate left 0.1 m/s", 0.1, 0.2, 0.01}}}},
		{"the same start: the one given later is the newer, as campaign.Monitor reads them", []*campaign.Summary{
			summary("first", t0, cell(api.StopEStop, "", 0.2, 0.41, nil)), summary("second", t0, cell(api.StopEStop, "", 0.2, 0.42, nil))}, nil,
			map[string][]boundWant{api.StopEStop: {{"second", "estop forward 0.2 m/s", 0.2, 0.42, nan}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := servicestops.Build("log", mixedRecs(), 0, tc.sums, tc.names)
			if len(r.Kinds) != 4 {
				t.Fatalf("%d kinds, want 4", len(r.Kinds))
			}
			for _, k := range r.Kinds {
				want := tc.want[k.Kind]
				if len(k.Bounds) != len(want) {
					t.Errorf("%s: %d bounds, want %d: %+v", k.Kind, len(k.Bounds), len(want), k.Bounds)
					continue
				}
				for i, b := range k.Bounds {
					w := want[i]
					if b.Campaign != w.campaign || b.Cell != w.cell || b.Speed != w.speed || !same(float64(b.StillS), w.still) || !same(float64(b.TravelM), w.travel) {
						t.Errorf("%s bound %d:\n got %+v\nwant %+v", k.Kind, i, b, w)
					}
				}
			}
		})
	}
}

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		recs []api.StopRecord
		want string
	}{
		{"no stops", nil, "PASS"},
		{"ok and not counted", []api.StopRecord{stop(1, "estop", api.StopLevelOK, nil, nil), stop(2, "kill", "", nil, nil)}, "PASS"},
		{"a warn", []api.StopRecord{stop(1, "estop", api.StopLevelOK, nil, nil), stop(2, "kill", api.StopLevelWarn, nil, nil)}, "WARN"},
		{"an error in the first kind, a warn in the last", []api.StopRecord{stop(1, "a", api.StopLevelError, nil, nil), stop(2, "z", api.StopLevelWarn, nil, nil)}, "FAIL"},
		{"a warn in the first kind, an error in the last", []api.StopRecord{stop(1, "a", api.StopLevelWarn, nil, nil), stop(2, "z", api.StopLevelError, nil, nil)}, "FAIL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := servicestops.Build("log", tc.recs, 0, nil, nil).Status(); got != tc.want {
				t.Errorf("Status %s, want %s", got, tc.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *servicestops.Report
		want string
	}{
		{"mixed, with bounds, NaN as -", servicestops.Build("state/stops", mixedRecs(), 2, []*campaign.Summary{oldSum(), newSum()}, nil), "" +
			"service contact: 1 stops, 0 counted, 0 WARN, 0 ERROR, worst still -, worst travel -; campaign bound contact turn 1 rad/s: - (new)\n" +
			"service deadman: 2 stops, 1 counted, 0 WARN, 0 ERROR, worst still 0.300 s, worst travel -; campaign bound deadman forward 0.2 m/s: 0.600 s (old)\n" +
			"service estop: 4 stops, 3 counted, 1 WARN, 1 ERROR, worst still 0.700 s, worst travel 0.050 m; campaign bound estop forward 0.2 m/s: 0.380 s; estop back 0.35 m/s: 0.500 s (new)\n" +
			"service scangate: 1 stops, 0 counted, 0 WARN, 0 ERROR, worst still 0.900 s, worst travel 0.100 m; campaign bound no campaign cell of this path\n" +
			"SERVICE STOPS: FAIL, 8 stops from state/stops, 2 bad record(s) skipped (shown, not gated: the driver's monitor gates in service)\n"},
		{"a warn, no campaign", servicestops.Build("s", []api.StopRecord{stop(1, "estop", api.StopLevelWarn, fp(0.5), nil)}, 0, nil, nil), "" +
			"service estop: 1 stops, 1 counted, 1 WARN, 0 ERROR, worst still 0.500 s, worst travel -; campaign bound no campaign cell of this path\n" +
			"SERVICE STOPS: WARN, 1 stops from s (shown, not gated: the driver's monitor gates in service)\n"},
		{"a bound over a run that never came still", servicestops.Build("s", []api.StopRecord{stop(1, "estop", api.StopLevelOK, fp(0.5), nil)}, 0,
			[]*campaign.Summary{summary("c", t0, cell(api.StopEStop, "", 0.2, math.Inf(1), nil))}, nil), "" +
			"service estop: 1 stops, 1 counted, 0 WARN, 0 ERROR, worst still 0.500 s, worst travel -; campaign bound estop forward 0.2 m/s: never (c)\n" +
			"SERVICE STOPS: PASS, 1 stops from s (shown, not gated: the driver's monitor gates in service)\n"},
		{"empty", servicestops.Build("state/stops", nil, 0, []*campaign.Summary{newSum()}, nil),
			"SERVICE STOPS: PASS, 0 stops from state/stops (shown, not gated: the driver's monitor gates in service)\n"},
		{"empty, every record bad", servicestops.Build("state/stops", nil, 3, nil, nil),
			"SERVICE STOPS: PASS, 0 stops from state/stops, 3 bad record(s) skipped (shown, not gated: the driver's monitor gates in service)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.r.Text(&b)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

func markdownOf(t *testing.T, sec reportdoc.Section) string {
	t.Helper()
	var b bytes.Buffer
	if err := reportdoc.Markdown(&b, &reportdoc.Document{Title: "monitor", Sections: []reportdoc.Section{sec}}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func htmlOf(t *testing.T, sec reportdoc.Section) string {
	t.Helper()
	var b bytes.Buffer
	if err := reportdoc.HTML(&b, &reportdoc.Document{Title: "monitor", Sections: []reportdoc.Section{sec}}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// lines counts the lines of s that start with prefix.
func lines(s, prefix string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func TestSectionMarkdown(t *testing.T) {
	r := servicestops.Build("state/stops", mixedRecs(), 2, []*campaign.Summary{oldSum(), newSum()}, nil)
	md := markdownOf(t, r.Section(false))
	for _, want := range []string{
		"\n## Service stops (state/stops): FAIL\n",
		"\n8 stops the driver timed in service, from its stop log (2 bad record(s) skipped). Each was judged",
		"\n| kind | stops | counted | WARN | ERROR | worst still | worst travel | campaign bound (still) |\n|---|---|---|---|---|---|---|---|\n" +
			"| contact | 1 | 0 | 0 | 0 | - | - | contact turn 1 rad/s: - (new) |\n" +
			"| deadman | 2 | 1 | 0 | 0 | 0.300 s | - | deadman forward 0.2 m/s: 0.600 s (old) |\n" +
			"| estop | 4 | 3 | 1 | 1 | 0.700 s | 0.050 m | estop forward 0.2 m/s: 0.380 s; estop back 0.35 m/s: 0.500 s (new) |\n" +
			"| scangate | 1 | 0 | 0 | 0 | 0.900 s | 0.100 m | no campaign cell of this path |\n",
		"\n### service estop\n",
		"| seq | wall time (UTC) | direction | speed | still | travel | confidence | limit | level | reason |",
		"| 1 | 2025-03-01 10:01:00 | fwd | 0.35 | 0.200 s | 0.020 m | ok | 0.450 s | ok | estop request from pid 812 (teleop) |\n",
		"| 4 | 2025-03-01 10:04:00 | fwd | 0.35 | 0.480 s | - | ok | - | error |  |\n",
		"| 6 | 2025-03-01 10:06:00 | fwd | 0.35 | 0.700 s | 0.010 m | ok | - | - |  |\n",
		"| 3 | 2025-03-01 10:03:00 | fwd | 0.35 | - | - | ok | - | - |  |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// One sub-section per kind, one row per stop (with the summary table's four rows and the headers).
	if n := lines(md, "### service "); n != 4 {
		t.Errorf("%d kind sections, want 4", n)
	}
	if n := lines(md, "| "); n != 1+4+4*1+8 {
		t.Errorf("%d table lines, want %d:\n%s", n, 1+4+4*1+8, md)
	}
	// Without plots there is no word about plots, and markdown never carries a figure.
	for _, bad := range []string{"nothing to plot", "<svg", "NaN"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown has %q", bad)
		}
	}
	// A stop's time is shown in UTC whatever its zone.
	recs := []api.StopRecord{stop(1, "estop", "", nil, nil)}
	recs[0].Wall = time.Date(2025, 3, 1, 12, 30, 0, 0, time.FixedZone("CET", 3600))
	if md := markdownOf(t, servicestops.Build("s", recs, 0, nil, nil).Section(false)); !strings.Contains(md, "| 1 | 2025-03-01 11:30:00 |") {
		t.Errorf("the wall time not in UTC:\n%s", md)
	}
}

func TestSectionHTML(t *testing.T) {
	r := servicestops.Build("state/stops", mixedRecs(), 0, []*campaign.Summary{oldSum(), newSum()}, nil)
	page := htmlOf(t, r.Section(true))
	for _, want := range []string{
		`<section id="service-stops"><h2>Service stops (state/stops): <span class="fail">FAIL</span></h2>`,
		"<p>8 stops the driver timed in service, from its stop log. Each was judged",
		`<tr><td>estop</td><td class="num">4</td><td class="num">3</td><td class="num">1</td><td class="num fail">1</td><td class="num">0.700 s</td><td class="num">0.050 m</td><td>estop forward 0.2 m/s: 0.380 s; estop back 0.35 m/s: 0.500 s (new)</td></tr>`,
		`<tr><td>scangate</td><td class="num">1</td><td class="num">0</td><td class="num">0</td><td class="num">0</td><td class="num">0.900 s</td><td class="num">0.100 m</td><td>no campaign cell of this path</td></tr>`,
		`<tr><td>contact</td><td class="num">1</td><td class="num">0</td><td class="num">0</td><td class="num">0</td><td class="num">-</td><td class="num">-</td><td>contact turn 1 rad/s: - (new)</td></tr>`,
		// The levels marked: warn and error bad news, ok good news, not counted plain.
		`<td class="pass">ok</td>`, `<td class="fail">warn</td>`, `<td class="fail">error</td>`, `<td class="pass">ok</td><td>estop request from pid 812 (teleop)</td></tr>`, `<td>-</td><td></td></tr>`,
		"<h3>service contact</h3>\n<p>No stop of this kind has a time to still (not measured): nothing to plot.</p>",
		"service estop: time to still per stop", "bound estop forward 0.2 m/s", "bound estop back 0.35 m/s",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// A plot per kind with a time to still (deadman, estop, scangate), none for contact; NaN is shown as "-".
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d plots, want 3", n)
	}
	if n := strings.Count(page, "nothing to plot"); n != 1 {
		t.Errorf("%d kinds with nothing to plot, want 1", n)
	}
	for _, bad := range []string{"NaN", "Inf", "bound contact"} {
		if strings.Contains(page, bad) {
			t.Errorf("HTML has %q", bad)
		}
	}
	if n := strings.Count(page, `<td class="fail">`); n != 2 {
		t.Errorf("%d failing level cells, want 2 (one warn, one error)", n)
	}
	if n := strings.Count(page, `<td class="pass">ok</td>`); n != 2 {
		t.Errorf("%d ok level cells, want 2", n)
	}
	// Without plots: the same tables, no figure and no word about plots.
	page = htmlOf(t, r.Section(false))
	if strings.Contains(page, "<svg") || strings.Contains(page, "<figure") || strings.Contains(page, "nothing to plot") {
		t.Errorf("a plot without plots")
	}
}

func TestSectionEscapesHostileNames(t *testing.T) {
	const kind = `<script>alert(1)</script>`
	const camp = `"><img src=x onerror=alert(2)>`
	recs := []api.StopRecord{stop(1, kind, api.StopLevelError, fp(0.3), nil), stop(2, kind, "", fp(0.2), nil)}
	recs[0].Reason = `<iframe src="javascript:alert(3)">`
	recs[1].Direction = "a|b"
	sums := []*campaign.Summary{summary("ignored", t0, cell(kind, "", 0.2, 0.25, nil))}
	r := servicestops.Build(`state/<b>stops</b>`, recs, 0, sums, []string{camp})
	if len(r.Kinds) != 1 || len(r.Kinds[0].Bounds) != 1 || r.Kinds[0].Bounds[0].Campaign != camp {
		t.Fatalf("%+v", r.Kinds)
	}
	page := htmlOf(t, r.Section(true))
	for _, bad := range []string{"<script", "<img", "<iframe", "<b>stops"} {
		if strings.Contains(page, bad) {
			t.Errorf("HTML has %q unescaped", bad)
		}
	}
	for _, want := range []string{
		"<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>",
		"(&#34;&gt;&lt;img src=x onerror=alert(2)&gt;)</td>",
		"<td>&lt;iframe src=&#34;javascript:alert(3)&#34;&gt;</td>",
		"Service stops (state/&lt;b&gt;stops&lt;/b&gt;)",
		// the plot's texts escaped by the plotter
		"service &lt;script&gt;alert(1)&lt;/script&gt;: time to still per stop",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	svgs := figures(t, r.Section(true))
	if len(svgs) != 1 {
		t.Fatalf("%d plots, want 1", len(svgs))
	}
	if p := parseSVG(t, svgs[0]); p.circles != 2+2 || p.dashed != 2 {
		t.Errorf("the hostile kind's plot: %+v", p)
	}
	// Markdown keeps a | in a cell out of the table's syntax.
	if md := markdownOf(t, r.Section(false)); !strings.Contains(md, `| a\|b |`) {
		t.Errorf("markdown: a | in a cell not escaped:\n%s", md)
	}
}

func TestSectionEmpty(t *testing.T) {
	for _, sums := range [][]*campaign.Summary{nil, {oldSum(), newSum()}} {
		r := servicestops.Build("state/stops", nil, 0, sums, nil)
		sec := r.Section(true)
		if len(sec.Sections) != 0 {
			t.Errorf("%d kind sections without a stop", len(sec.Sections))
		}
		md := markdownOf(t, sec)
		page := htmlOf(t, sec)
		for _, want := range []string{"Service stops (state/stops): PASS", "0 stops the driver timed in service, from its stop log."} {
			if !strings.Contains(md, want) || !strings.Contains(page, strings.ReplaceAll(want, "PASS", `<span class="pass">PASS</span>`)) {
				t.Errorf("empty report lacks %q:\n%s\n%s", want, md, page)
			}
		}
		// The summary table is its header alone.
		if !strings.Contains(md, "| kind | stops | counted | WARN | ERROR | worst still | worst travel | campaign bound (still) |\n|---|---|---|---|---|---|---|---|\n") ||
			lines(md, "| ") != 1 {
			t.Errorf("empty report's table:\n%s", md)
		}
		if strings.Contains(page, "<svg") || strings.Contains(page, "<h3>") {
			t.Errorf("empty report has a plot or a kind")
		}
	}
}

// svgPlot is what a plot's SVG shows: its glyphs (the stops' points and the legend's) and its dashed lines
// (the bounds and the legend's), and its texts.
type svgPlot struct {
	circles, dashed int
	texts           []string
}

// parseSVG decodes the SVG as XML, token by token, and counts what it draws.
func parseSVG(t *testing.T, svg []byte) svgPlot {
	t.Helper()
	var p svgPlot
	dec := xml.NewDecoder(bytes.NewReader(svg))
	root, inText := "", false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = x.Name.Space + " " + x.Name.Local
			}
			inText = x.Name.Local == "text"
			if x.Name.Local != "path" {
				continue
			}
			for _, a := range x.Attr {
				switch {
				case a.Name.Local == "d" && strings.Contains(a.Value, "A2.5,2.5"): // a circle glyph of radius 2.5 pt
					p.circles++
				case a.Name.Local == "style" && strings.Contains(a.Value, "stroke-dasharray"):
					p.dashed++
				}
			}
		case xml.CharData:
			if inText {
				p.texts = append(p.texts, string(x))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("the SVG's root is %q", root)
	}
	return p
}

func figures(t *testing.T, sec reportdoc.Section) [][]byte {
	t.Helper()
	var out [][]byte
	for _, sub := range sec.Sections {
		for _, bl := range sub.Blocks {
			if f, ok := bl.(reportdoc.Figure); ok {
				if f.Err != "" || len(f.SVG) == 0 {
					t.Fatalf("%s: figure error %q", f.Alt, f.Err)
				}
				out = append(out, f.SVG)
			}
		}
	}
	return out
}

func TestPlotSVG(t *testing.T) {
	for _, tc := range []struct {
		name     string
		recs     []api.StopRecord
		sums     []*campaign.Summary
		points   int      // the stops with a time to still
		legend   []string // the levels' legend entries, in order
		bounds   []string // the bounds drawn (a NaN bound is not)
		nothingP bool     // no stop has a time to still: no plot
	}{
		{"every level, two bounds drawn, a NaN bound left out", []api.StopRecord{
			stop(1, "estop", api.StopLevelOK, fp(0.2), nil),
			stop(2, "estop", api.StopLevelOK, fp(0.25), nil),
			stop(3, "estop", api.StopLevelWarn, fp(0.5), nil),
			stop(4, "estop", api.StopLevelError, fp(0.55), nil),
			stop(5, "estop", "", fp(0.3), nil),
			stop(6, "estop", api.StopLevelOK, nil, fp(0.02)), // no time to still: not a point
		}, []*campaign.Summary{summary("c", t0, cell("estop", "", 0.2, 0.4, nil), cell("estop", "back", 0.35, 0.45, nil), cell("estop", "left", 0.1, math.NaN(), nil))},
			5, []string{"stop: ok", "stop: warn", "stop: error", "stop: not counted"}, []string{"bound estop forward 0.2 m/s", "bound estop back 0.35 m/s"}, false},
		{"one stop, no campaign", []api.StopRecord{stop(1, "kill", "", fp(1.5), nil)}, nil,
			1, []string{"stop: not counted"}, nil, false},
		{"many stops of one level", func() []api.StopRecord {
			var recs []api.StopRecord
			for i := range 40 {
				recs = append(recs, stop(uint64(i+1), "deadman", api.StopLevelOK, fp(0.1+float64(i)/100), nil))
			}
			return recs
		}(), []*campaign.Summary{summary("c", t0, cell("deadman", "", 0.2, 0.6, nil))},
			40, []string{"stop: ok"}, []string{"bound deadman forward 0.2 m/s"}, false},
		{"no time to still: nothing to plot", []api.StopRecord{stop(1, "board", api.StopLevelOK, nil, fp(0.1))}, nil, 0, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sec := servicestops.Build("s", tc.recs, 0, tc.sums, nil).Section(true)
			svgs := figures(t, sec)
			if tc.nothingP {
				if len(svgs) != 0 {
					t.Fatalf("%d plots, want none", len(svgs))
				}
				return
			}
			if len(svgs) != 1 {
				t.Fatalf("%d plots, want 1", len(svgs))
			}
			p := parseSVG(t, svgs[0])
			var legend, bounds []string
			for _, s := range p.texts {
				switch {
				case strings.HasPrefix(s, "stop: "):
					legend = append(legend, s)
				case strings.HasPrefix(s, "bound "):
					bounds = append(bounds, s)
				}
			}
			if !reflect.DeepEqual(legend, tc.legend) || !reflect.DeepEqual(bounds, tc.bounds) {
				t.Errorf("legend %q and bounds %q, want %q and %q", legend, bounds, tc.legend, tc.bounds)
			}
			// One glyph per point and one per level in the legend; a line per bound and its legend line.
			if p.circles != tc.points+len(tc.legend) {
				t.Errorf("%d glyphs, want %d points and %d legend glyphs", p.circles, tc.points, len(tc.legend))
			}
			if p.dashed != 2*len(tc.bounds) {
				t.Errorf("%d dashed lines, want %d", p.dashed, 2*len(tc.bounds))
			}
		})
	}
}

func TestJSON(t *testing.T) {
	r := servicestops.Build("state/stops", []api.StopRecord{stop(1, "estop", "", nil, nil)}, 0, nil, nil)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"source":"state/stops","bad":0,"stops":1,"kinds":[{"kind":"estop","count":1,"counted":0,"warn":0,"error":0,"worst_still_s":null,"worst_travel_m":null}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}

	// An empty log: a list of no kinds, not null, for a reader that iterates it.
	if b, err = json.Marshal(servicestops.Build("state/stops", nil, 0, nil, nil)); err != nil || string(b) != `{"source":"state/stops","bad":0,"stops":0,"kinds":[]}` {
		t.Errorf("empty: %s, %v", b, err)
	}

	r = servicestops.Build("state/stops", mixedRecs(), 2, []*campaign.Summary{oldSum(), newSum()}, nil)
	if b, err = json.Marshal(r); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Source string
		Bad    int
		Stops  int
		Kinds  []map[string]json.RawMessage
	}
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if j.Source != "state/stops" || j.Bad != 2 || j.Stops != 8 || len(j.Kinds) != 4 {
		t.Fatalf("%s", b)
	}
	for i, want := range []map[string]string{
		{"kind": `"contact"`, "count": "1", "worst_still_s": "null", "worst_travel_m": "null",
			"bounds": `[{"campaign":"new","cell":"contact turn 1 rad/s","speed":1,"still_s":null,"travel_m":null}]`},
		{"kind": `"deadman"`, "count": "2", "counted": "1", "worst_still_s": "0.3", "worst_travel_m": "null",
			"bounds": `[{"campaign":"old","cell":"deadman forward 0.2 m/s","speed":0.2,"still_s":0.6,"travel_m":null}]`},
		{"kind": `"estop"`, "count": "4", "counted": "3", "warn": "1", "error": "1", "worst_still_s": "0.7", "worst_travel_m": "0.05",
			"bounds": `[{"campaign":"new","cell":"estop forward 0.2 m/s","speed":0.2,"still_s":0.38,"travel_m":0.025},{"campaign":"new","cell":"estop back 0.35 m/s","speed":0.35,"still_s":0.5,"travel_m":null}]`},
		{"kind": `"scangate"`, "worst_still_s": "0.9", "worst_travel_m": "0.1"},
	} {
		k := j.Kinds[i]
		for key, v := range want {
			if string(k[key]) != v {
				t.Errorf("kind %d %s: %s, want %s", i, key, k[key], v)
			}
		}
		if _, ok := k["stops"]; ok {
			t.Errorf("kind %d carries its stops", i)
		}
		if _, ok := k["bounds"]; ok != (want["bounds"] != "") {
			t.Errorf("kind %d: bounds present %v", i, ok)
		}
	}
	// And back: null reads as NaN.
	var back servicestops.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if k := back.Kinds[0]; !math.IsNaN(float64(k.WorstStillS)) || !math.IsNaN(float64(k.Bounds[0].StillS)) || len(k.Stops) != 0 {
		t.Errorf("read back %+v", k)
	}
	if k := back.Kinds[2]; k.WorstStillS != 0.7 || k.Bounds[0].TravelM != 0.025 || !math.IsNaN(float64(k.Bounds[1].TravelM)) {
		t.Errorf("read back %+v", k)
	}
}
