// Package servicestops puts the stops the driver made in service (its stop log, issue 35) beside the lab's
// campaigns, so one stop-performance monitor (`stopproof report --history`) spans the lab and the field: per
// stop kind, the service stops' times to still over time against the latest campaign's tolerance bound for
// the proof path of the same name (api.Stop* kinds are the proofs' path names), and a table of counts,
// levels and worst figures.
//
// It judges nothing new: the driver's monitor judged each stop in service (its Level, against its Limit);
// this report shows those verdicts and the campaign bound beside them. A campaign cell is one path at one
// motion, a service stop any speed: the bounds are drawn per cell, labelled with its motion, for a person
// to read against the speed in the table, never compared stop by stop. The records come in as values (the
// caller reads the log with driver/stoplog): this package does no I/O.
package servicestops

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/reportdoc"
)

// Bound is one campaign cell's tolerance bound for a path: the figure the service stops of that kind are
// drawn against.
type Bound struct {
	Campaign string       `json:"campaign"`
	Cell     string       `json:"cell"` // "estop fwd 0.35 m/s"
	Speed    float64      `json:"speed"`
	StillS   campaign.Num `json:"still_s"`  // NaN (null in JSON): no bound (too few runs)
	TravelM  campaign.Num `json:"travel_m"` // NaN: none
}

// Kind is one stop kind's service stops.
type Kind struct {
	Kind    string `json:"kind"`
	Count   int    `json:"count"`
	Counted int    `json:"counted"` // held against a limit (Level set)
	Warn    int    `json:"warn"`
	Error   int    `json:"error"`
	// WorstStillS and WorstTravelM are over every stop of the kind with a value (NaN: none).
	WorstStillS  campaign.Num     `json:"worst_still_s"`
	WorstTravelM campaign.Num     `json:"worst_travel_m"`
	Bounds       []Bound          `json:"bounds,omitempty"`
	Stops        []api.StopRecord `json:"-"`
}

// Report is the service part of the monitor.
type Report struct {
	Source string `json:"source"` // the stop log read
	Bad    int    `json:"bad"`    // bad records skipped by the reader
	Stops  int    `json:"stops"`
	Kinds  []Kind `json:"kinds"`
}

// Build groups recs (oldest first) by kind and finds each kind's bounds in the latest campaign of sums that
// has cells of the path of that name. source names the log and bad counts the records its reader skipped.
func Build(source string, recs []api.StopRecord, bad int, sums []*campaign.Summary, names []string) *Report {
	r := &Report{Source: source, Bad: bad, Stops: len(recs), Kinds: []Kind{}}
	byKind := map[string]*Kind{}
	var order []string
	for _, s := range recs {
		k := byKind[s.Kind]
		if k == nil {
			k = &Kind{Kind: s.Kind, WorstStillS: campaign.Num(math.NaN()), WorstTravelM: campaign.Num(math.NaN())}
			byKind[s.Kind] = k
			order = append(order, s.Kind)
		}
		k.Count++
		switch s.Level {
		case api.StopLevelOK:
			k.Counted++
		case api.StopLevelWarn:
			k.Counted++
			k.Warn++
		case api.StopLevelError:
			k.Counted++
			k.Error++
		}
		if s.StillS != nil && !(*s.StillS <= float64(k.WorstStillS)) {
			k.WorstStillS = campaign.Num(*s.StillS)
		}
		if s.TravelM != nil && !(*s.TravelM <= float64(k.WorstTravelM)) {
			k.WorstTravelM = campaign.Num(*s.TravelM)
		}
		k.Stops = append(k.Stops, s)
	}
	sort.Strings(order)
	// The campaigns newest first, by their first run; where two began at the same time, the one given later is
	// the newer (sources come oldest first, as campaign.Monitor reads them).
	idx := make([]int, len(sums))
	for i := range idx {
		idx[i] = len(sums) - 1 - i
	}
	sort.SliceStable(idx, func(a, b int) bool { return sums[idx[a]].Start.After(sums[idx[b]].Start) })
	for _, kind := range order {
		k := byKind[kind]
		for _, i := range idx {
			name := sums[i].Name
			if i < len(names) {
				name = names[i]
			}
			for _, c := range sums[i].Cells {
				if c.Cell.Path != kind {
					continue
				}
				b := Bound{Campaign: name, Cell: cellLabel(c.Cell), Speed: c.Cell.Speed, StillS: c.Still.Bound, TravelM: campaign.Num(math.NaN())}
				if c.Travel != nil {
					b.TravelM = c.Travel.Bound
				}
				k.Bounds = append(k.Bounds, b)
			}
			if len(k.Bounds) > 0 {
				break // the latest campaign with this path
			}
		}
		r.Kinds = append(r.Kinds, *k)
	}
	return r
}

func cellLabel(c campaign.Cell) string {
	d := c.Direction
	if d == "" {
		d = "forward"
	}
	unit := "m/s"
	if d == "turn" {
		unit = "rad/s"
	}
	return fmt.Sprintf("%s %s %s %s", c.Path, d, strconv.FormatFloat(c.Speed, 'f', -1, 64), unit)
}

func num[F ~float64](xf F, unit string) string {
	x := float64(xf)
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1): // a campaign bound over a run that never came still
		return "never"
	case math.IsInf(x, -1):
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 3, 64) + " " + unit
}

// Status is the part's mark: FAIL when a stop is at ERROR (the driver's trend rule), WARN when one is past
// its limit, else PASS. It does not change the campaigns' gate (the exit status): the driver's own monitor
// gates in service.
func (r *Report) Status() string {
	st := "PASS"
	for _, k := range r.Kinds {
		if k.Error > 0 {
			return "FAIL"
		}
		if k.Warn > 0 {
			st = "WARN"
		}
	}
	return st
}

func (k Kind) boundsText() string {
	var parts []string
	for _, b := range k.Bounds {
		parts = append(parts, fmt.Sprintf("%s: %s", b.Cell, num(b.StillS, "s")))
	}
	if len(parts) == 0 {
		return "no campaign cell of this path"
	}
	return strings.Join(parts, "; ") + " (" + k.Bounds[0].Campaign + ")"
}

// Text writes one line per kind and the part's line (for a terminal).
func (r *Report) Text(w io.Writer) {
	for _, k := range r.Kinds {
		fmt.Fprintf(w, "service %s: %d stops, %d counted, %d WARN, %d ERROR, worst still %s, worst travel %s; campaign bound %s\n",
			k.Kind, k.Count, k.Counted, k.Warn, k.Error, num(k.WorstStillS, "s"), num(k.WorstTravelM, "m"), k.boundsText())
	}
	bad := ""
	if r.Bad > 0 {
		bad = fmt.Sprintf(", %d bad record(s) skipped", r.Bad)
	}
	fmt.Fprintf(w, "SERVICE STOPS: %s, %d stops from %s%s (shown, not gated: the driver's monitor gates in service)\n", r.Status(), r.Stops, r.Source, bad)
}

func docStatus(s string) reportdoc.Status {
	switch s {
	case "PASS":
		return reportdoc.Pass
	case "FAIL":
		return reportdoc.Fail
	}
	return reportdoc.Plain
}

// Section is the part in the report model: a summary table of the kinds, then per kind a plot of its stops'
// times to still over time against the campaign's bounds (inline SVG, when plots) and its stops.
func (r *Report) Section(plots bool) reportdoc.Section {
	T := reportdoc.T
	st := r.Status()
	sec := reportdoc.Section{ID: "service-stops", Title: reportdoc.Text{{Text: "Service stops (" + r.Source + "): "}, reportdoc.Marked(st, docStatus(st))}}
	intro := fmt.Sprintf("%d stops the driver timed in service, from its stop log", r.Stops)
	if r.Bad > 0 {
		intro += fmt.Sprintf(" (%d bad record(s) skipped)", r.Bad)
	}
	intro += ". Each was judged by the driver's own monitor against its limit (level); the campaign bound of the path of the same name is drawn beside them, per cell (a path at one motion), for reading against the stop's speed. Shown, not gated: the report's verdict is the campaigns'."
	sec.Blocks = append(sec.Blocks, reportdoc.Para{Text: T(intro)})
	sum := reportdoc.Table{Header: []string{"kind", "stops", "counted", "WARN", "ERROR", "worst still", "worst travel", "campaign bound (still)"}}
	for _, k := range r.Kinds {
		row := reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.C(k.Kind), reportdoc.NumC(strconv.Itoa(k.Count)), reportdoc.NumC(strconv.Itoa(k.Counted)),
			reportdoc.NumC(strconv.Itoa(k.Warn)), reportdoc.NumC(strconv.Itoa(k.Error)), reportdoc.NumC(num(k.WorstStillS, "s")),
			reportdoc.NumC(num(k.WorstTravelM, "m")), reportdoc.C(k.boundsText())}}
		if k.Error > 0 {
			row.Cells[4].Status = reportdoc.Fail
		}
		sum.Rows = append(sum.Rows, row)
	}
	sec.Blocks = append(sec.Blocks, sum)
	for _, k := range r.Kinds {
		sub := reportdoc.Section{Title: T("service " + k.Kind)}
		hasStill := false
		for _, s := range k.Stops {
			hasStill = hasStill || s.StillS != nil
		}
		if plots && !hasStill {
			sub.Blocks = append(sub.Blocks, reportdoc.Para{Text: T("No stop of this kind has a time to still (not measured): nothing to plot.")})
		}
		if plots && hasStill {
			f := reportdoc.Figure{Alt: "service " + k.Kind + " stops: time to still over time, against the campaign bound"}
			p, err := kindPlot(k)
			if err == nil {
				f.SVG, err = reportdoc.PlotSVG(p, 6.5*vg.Inch, 3*vg.Inch)
			}
			if err != nil {
				f.Err = err.Error()
			}
			sub.Blocks = append(sub.Blocks, f)
		}
		tab := reportdoc.Table{Header: []string{"seq", "wall time (UTC)", "direction", "speed", "still", "travel", "confidence", "limit", "level", "reason"}}
		for _, s := range k.Stops {
			var still, travel float64 = math.NaN(), math.NaN()
			if s.StillS != nil {
				still = *s.StillS
			}
			if s.TravelM != nil {
				travel = *s.TravelM
			}
			lim := "-"
			if s.Limit != nil && s.Limit.MaxStillS > 0 {
				lim = num(s.Limit.MaxStillS, "s")
			}
			lv := s.Level
			if lv == "" {
				lv = "-"
			}
			row := reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.NumC(strconv.FormatUint(s.Seq, 10)), reportdoc.C(s.Wall.UTC().Format("2006-01-02 15:04:05")),
				reportdoc.C(s.Direction), reportdoc.NumC(strconv.FormatFloat(s.Speed, 'f', 2, 64)), reportdoc.NumC(num(still, "s")), reportdoc.NumC(num(travel, "m")),
				reportdoc.C(s.Confidence), reportdoc.NumC(lim), reportdoc.C(lv), reportdoc.C(s.Reason)}}
			switch s.Level {
			case api.StopLevelError, api.StopLevelWarn:
				row.Cells[8].Status = reportdoc.Fail
			case api.StopLevelOK:
				row.Cells[8].Status = reportdoc.Pass
			}
			tab.Rows = append(tab.Rows, row)
		}
		sub.Blocks = append(sub.Blocks, tab)
		sec.Sections = append(sec.Sections, sub)
	}
	return sec
}

var (
	colOK     = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	colWarn   = color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	colError  = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	colUncnt  = color.RGBA{0x99, 0x99, 0x99, 0xff}
	colBounds = []color.RGBA{{0x2c, 0xa0, 0x2c, 0xff}, {0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0x17, 0xbe, 0xcf, 0xff}}
)

// kindPlot draws a kind's stops' times to still against their wall time, coloured by the monitor's level
// (grey: not counted), with each campaign cell's bound as a dashed line.
func kindPlot(k Kind) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "service " + k.Kind + ": time to still per stop"
	p.Y.Label.Text = "time to still (s)"
	p.X.Label.Text = "trigger (UTC)"
	p.X.Tick.Marker = plot.TimeTicks{Format: "01-02 15:04", Time: func(t float64) time.Time { return time.Unix(int64(t), 0).UTC() }}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	groups := map[string]plotter.XYs{}
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range k.Stops {
		x := float64(s.Wall.Unix())
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		if s.StillS == nil {
			continue
		}
		lv := s.Level
		if lv == "" {
			lv = "not counted"
		}
		groups[lv] = append(groups[lv], plotter.XY{X: x, Y: *s.StillS})
		ymax = math.Max(ymax, *s.StillS)
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	pad := math.Max((xmax-xmin)*0.04, 30) // the first and last stops off the frame's edges
	xmin, xmax = xmin-pad, xmax+pad
	for _, g := range []struct {
		level string
		col   color.RGBA
	}{{api.StopLevelOK, colOK}, {api.StopLevelWarn, colWarn}, {api.StopLevelError, colError}, {"not counted", colUncnt}} {
		xy := groups[g.level]
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = g.col, vg.Points(2.5), draw.CircleGlyph{}
		p.Add(sc)
		p.Legend.Add("stop: "+g.level, sc)
	}
	for i, b := range k.Bounds {
		y := float64(b.StillS)
		if math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: y}, {X: xmax, Y: y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = colBounds[i%len(colBounds)], vg.Points(1.5), []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("bound "+b.Cell, l)
		ymax = math.Max(ymax, y)
	}
	p.Y.Min, p.Y.Max = 0, math.Max(ymax*1.3, 0.1)
	p.X.Min, p.X.Max = xmin, xmax
	return p, nil
}
