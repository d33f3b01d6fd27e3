package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/rosorin/rosorin/judge/envelope"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/reportdoc"
)

// ParseFootprint reads "LxW" (metres, length along x by width along y, e.g. 0.25x0.20) as a rectangle centred
// on the base frame's origin.
func ParseFootprint(s string) (envelope.Footprint, error) {
	l, w, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	if ok {
		lv, err1 := strconv.ParseFloat(strings.TrimSpace(l), 64)
		wv, err2 := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err1 == nil && err2 == nil && lv > 0 && wv > 0 && finite(lv) && finite(wv) {
			return envelope.Rectangle(lv, wv), nil
		}
	}
	return envelope.Footprint{}, fmt.Errorf("--footprint %q: want LxW in metres, both > 0, e.g. 0.25x0.20 (length along x, width along y, centred on base_footprint)", s)
}

// Row is one tested speed of a group as the table shows it.
type Row struct {
	V             float64
	Runs          int
	BoundDistance float64
	BoundTime     float64
	FitDistance   float64
	Residual      float64 // bounded minus fitted distance
}

// Rows are the group's table rows, slowest first.
func (g *Group) Rows() []Row {
	var rows []Row
	for i, s := range g.Env.Speeds {
		rows = append(rows, Row{V: s.V, Runs: len(s.Distances), BoundDistance: s.BoundDistance, BoundTime: s.BoundTime,
			FitDistance: g.Env.Bound.Distance(s.V), Residual: g.Env.Bound.Residuals[i]})
	}
	return rows
}

func fitLine(name string, f envelope.Fit) string {
	s := fmt.Sprintf("fit over the %s: t_r %s s, a %s m/s², RMS %s m, max |residual| %s m, R² %s", name, num3(f.ResponseTime), num3(f.Decel),
		strconv.FormatFloat(f.RMS, 'g', 3, 64), strconv.FormatFloat(f.Max, 'g', 3, 64), strconv.FormatFloat(f.R2, 'f', 4, 64))
	if f.Clamped != "" {
		s += " (" + f.Clamped + ")"
	}
	return s
}

// LimitLine is the answer for the clearance: "for a clearance of 0.45 m: 0.35 m/s (bounded stopping distance
// 0.061 m)", with a note when every tested speed fits.
func (r *Report) LimitLine(g *Group) string {
	var d float64
	for _, s := range g.Env.Speeds {
		if s.V == g.Limit {
			d = s.BoundDistance
		}
	}
	s := fmt.Sprintf("for a clearance of %s m: %s m/s (bounded stopping distance %s m)", num3(r.Options.Clearance), speed(g.Limit), strconv.FormatFloat(d, 'f', 3, 64))
	if g.Limit == g.Env.MaxSpeed() {
		s += "; it is the fastest tested speed: faster ones were not tested and the envelope says nothing about them"
	}
	return s
}

// ConfigLines are the configuration in words, each with the numbers it came from.
func (r *Report) ConfigLines() []string {
	var out []string
	out = append(out, "source: "+r.Zone.Source)
	if r.Options.Footprint == nil {
		out = append(out, "stop zone: give --footprint LxW (the robot body; the toolkit does not know it): it grows by the bounded stopping distance at the fastest tested speed of each direction")
	} else if z, err := r.Zone.StopZone(); err != nil {
		out = append(out, "stop zone: "+err.Error())
	} else {
		f := r.Zone.Footprint
		var parts []string
		for _, e := range r.Zone.Envelopes {
			parts = append(parts, fmt.Sprintf("%s %s %s m at %s m/s", e.Path, e.Direction, num3(e.AtMax().BoundDistance), speed(e.MaxSpeed())))
		}
		out = append(out, fmt.Sprintf("stop zone: front %s, rear %s, left %s, right %s m from base_footprint (footprint front %s, rear %s, left %s, right %s m, grown by the bounded stopping distance at the fastest tested speed: %s)",
			num3(z.Front), num3(z.Rear), num3(z.Left), num3(z.Right), num3(f.Front), num3(f.Rear), num3(f.Left), num3(f.Right), strings.Join(parts, "; ")))
	}
	if t, err := r.Zone.ApproachTime(); err == nil {
		out = append(out, fmt.Sprintf("approach: time_before_collision %s s (the longest bounded stop time at the fastest tested speed)", num3(t)))
	}
	if r.SmootherErr != "" {
		out = append(out, "velocity smoother: not derived: "+r.SmootherErr)
	} else {
		d, _ := r.Smoother.SmootherDecel()
		var parts []string
		for _, e := range r.Smoother.Envelopes {
			parts = append(parts, fmt.Sprintf("%s %s a %s m/s²", e.Path, e.Direction, num3(e.Bound.Decel)))
		}
		out = append(out, fmt.Sprintf("velocity smoother: max_decel [%s, %s, %s] (no harder than the measured braking, margin %s: %s; theta is the caller's, not measured)",
			num3(d[0]), num3(d[1]), num3(d[2]), num3(r.Options.Margin), strings.Join(parts, "; ")))
	}
	return out
}

// Text writes a table per path and direction, its fits, the configuration and the notes.
func (r *Report) Text(w io.Writer) error {
	for _, g := range r.Groups {
		fmt.Fprintf(w, "%s (%d tested speeds, %s..%s m/s)\n", g.Name(), len(g.Env.Speeds), speed(g.Env.MinSpeed()), speed(g.Env.MaxSpeed()))
		t := tablewriter.NewTable(w,
			tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithHeaderAlignment(tw.AlignLeft),
			tablewriter.WithRowAlignment(tw.AlignRight),
		)
		t.Header("speed m/s", "runs", "bounded distance m", "bounded time s", "fit distance m", "residual m")
		for _, row := range g.Rows() {
			if err := t.Append([]string{speed(row.V), strconv.Itoa(row.Runs), f4(row.BoundDistance), f4(row.BoundTime), f4(row.FitDistance), signed(row.Residual)}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		fmt.Fprintln(w, "  "+fitLine("bounded distances", g.Env.Bound))
		fmt.Fprintln(w, "  "+fitLine("runs", g.Env.Runs))
		if g.Limit > 0 {
			fmt.Fprintln(w, "  "+r.LimitLine(g))
		}
		if len(g.Env.Splits) > 0 {
			fmt.Fprintln(w, "  the bounded distance split (each time the slowest run's):")
			st := tablewriter.NewTable(w,
				tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
				tablewriter.WithHeaderAutoFormat(tw.Off),
				tablewriter.WithHeaderAlignment(tw.AlignLeft),
				tablewriter.WithRowAlignment(tw.AlignRight),
			)
			hdr := make([]any, len(SplitHeader))
			for i, h := range SplitHeader {
				hdr[i] = h
			}
			st.Header(hdr...)
			for _, sp := range g.Env.Splits {
				if err := st.Append(SplitCells(sp)); err != nil {
					return err
				}
			}
			if err := st.Render(); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(w, "configuration:")
	for _, l := range r.ConfigLines() {
		fmt.Fprintln(w, "  "+l)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
	_, err := fmt.Fprintln(w, "the envelope answers only inside the tested speeds: it is never extrapolated")
	return err
}

// SplitHeader and SplitCells are the split table's columns: the response part (the controller's to the
// board, the actuators' to the measured deceleration) and the braking part of each bounded distance.
var SplitHeader = []string{"speed m/s", "to the board s", "to measured decel s", "response m", "actuators m", "braking m", "bounded m"}

// SplitCells is one row of the split table ("-" for a part not measured).
func SplitCells(sp envelope.Split) []string {
	return []string{speed(sp.V), f3n(sp.ResponseTime), f3n(sp.DecelTime), f4n(sp.ResponseDistance), f4n(sp.ActuatorDistance),
		f4(sp.BrakingDistance), f4(sp.BoundDistance)}
}

func f3n(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func f4n(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return f4(x)
}

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

func signed(x float64) string {
	if x >= 0 {
		return "+" + f4(x)
	}
	return f4(x)
}

var (
	runColor   = color.RGBA{0x99, 0x99, 0x99, 0xff}
	boundColor = color.RGBA{0xd6, 0x27, 0x28, 0xff}
	fitColor   = color.RGBA{0x1f, 0x77, 0xb4, 0xff}
)

// Plot draws one group: each run's travel against its speed (grey, behind), the bounded distances (red) and
// the bounded fit, drawn only between the slowest and the fastest tested speed.
func (g *Group) Plot() (*plot.Plot, error) {
	p, bounds, ymax, err := g.speedPlot("stopping envelope: ", "stopping distance after the trigger (m)",
		func(s envelope.Speed) ([]float64, float64) { return s.Distances, s.BoundDistance })
	if err != nil {
		return nil, err
	}
	var fit plotter.XYs
	lo, hi := g.Env.MinSpeed(), g.Env.MaxSpeed()
	for i := 0; i <= 60; i++ {
		v := lo + (hi-lo)*float64(i)/60
		fit = append(fit, plotter.XY{X: v, Y: g.Env.Bound.Distance(v)})
	}
	fl, err := plotter.NewLine(fit)
	if err != nil {
		return nil, err
	}
	fl.Color, fl.Width = fitColor, vg.Points(1.5)
	p.Add(fl)
	p.Legend.Add(fmt.Sprintf("fit of the bounds: t_r %s s, a %s m/s²", num3(g.Env.Bound.ResponseTime), num3(g.Env.Bound.Decel)), fl)
	bs, err := plotter.NewScatter(bounds)
	if err != nil {
		return nil, err
	}
	bs.GlyphStyle.Color, bs.GlyphStyle.Shape, bs.GlyphStyle.Radius = boundColor, draw.BoxGlyph{}, vg.Points(3.5)
	p.Add(bs)
	p.Legend.Add("bounded distance", bs)
	g.speedAxes(p, ymax)
	return p, nil
}

// PlotTime draws one group's times: each run's time to still against its speed (grey, behind) and the
// bounded times (red), joined only between the tested speeds (no model is fitted to the times).
func (g *Group) PlotTime() (*plot.Plot, error) {
	p, bounds, ymax, err := g.speedPlot("stopping time: ", "time from the trigger to still (s)",
		func(s envelope.Speed) ([]float64, float64) { return s.Times, s.BoundTime })
	if err != nil {
		return nil, err
	}
	bl, bs, err := plotter.NewLinePoints(bounds)
	if err != nil {
		return nil, err
	}
	bl.Color, bl.Width = boundColor, vg.Points(1)
	bs.Color, bs.Shape, bs.Radius = boundColor, draw.BoxGlyph{}, vg.Points(3.5)
	p.Add(bl, bs)
	p.Legend.Add("bounded time", bl, bs)
	g.speedAxes(p, ymax)
	return p, nil
}

// speedPlot starts what the distance and the time plot share: the title (prefix and the group's name), the
// axes' labels, the grid and each run's value against its speed (grey dots, added first so that they stay
// behind). of picks a tested speed's run values and its bound; speedPlot returns the bounded points, for the
// caller to draw its own way, and the largest value, for speedAxes.
func (g *Group) speedPlot(title, yLabel string, of func(envelope.Speed) ([]float64, float64)) (*plot.Plot, plotter.XYs, float64, error) {
	p := plot.New()
	p.Title.Text = title + g.Name()
	p.X.Label.Text = "speed (m/s)"
	p.Y.Label.Text = yLabel
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	var runs, bounds plotter.XYs
	ymax := 0.0
	for _, s := range g.Env.Speeds {
		vals, bound := of(s)
		for _, y := range vals {
			runs = append(runs, plotter.XY{X: s.V, Y: y})
			ymax = math.Max(ymax, y)
		}
		bounds = append(bounds, plotter.XY{X: s.V, Y: bound})
		ymax = math.Max(ymax, bound)
	}
	rs, err := plotter.NewScatter(runs)
	if err != nil {
		return nil, nil, 0, err
	}
	rs.GlyphStyle.Color, rs.GlyphStyle.Shape, rs.GlyphStyle.Radius = runColor, draw.CircleGlyph{}, vg.Points(2)
	p.Add(rs)
	p.Legend.Add("runs", rs)
	return p, bounds, ymax, nil
}

// speedAxes ends a plot of speedPlot's: the tested speeds with a margin, from zero to above ymax, and the
// legend's size. It comes after the last Add, which would widen the ranges to its data.
func (g *Group) speedAxes(p *plot.Plot, ymax float64) {
	lo, hi := g.Env.MinSpeed(), g.Env.MaxSpeed()
	pad := (hi - lo) * 0.08
	p.X.Min, p.X.Max = math.Max(0, lo-pad), hi+pad
	p.Y.Min, p.Y.Max = 0, ymax*1.15
	p.Legend.TextStyle.Font.Size = vg.Points(9)
}

// Image renders the group's distance plot as "png" or "svg".
func (g *Group) Image(format string) ([]byte, error) {
	p, err := g.Plot()
	if err != nil {
		return nil, err
	}
	return render(p, format)
}

// TimeImage renders the group's time plot as "png" or "svg".
func (g *Group) TimeImage(format string) ([]byte, error) {
	p, err := g.PlotTime()
	if err != nil {
		return nil, err
	}
	return render(p, format)
}

func render(p *plot.Plot, format string) ([]byte, error) {
	wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, format)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FileName is the group's plot file name without extension: "envelope-estop-forward".
func (g *Group) FileName() string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
				return r
			}
			return '_'
		}, s)
	}
	return "envelope-" + clean(g.Path) + "-" + clean(g.Direction)
}

// Document is the report as a reportdoc.Document (the HTML page: tables, plots inline, nothing fetched).
func (r *Report) Document() *reportdoc.Document {
	d := &reportdoc.Document{Title: "Stopping envelope"}
	var srcs []reportdoc.Text
	for _, s := range r.Sources {
		srcs = append(srcs, reportdoc.T(fmt.Sprintf("%s: %s (R %s, C %s, n %d a cell, verification %s)", s.Name, strings.Join(s.Folders, ", "), num3(s.R), num3(s.C), s.N, s.Verdict)))
	}
	d.Blocks = append(d.Blocks, reportdoc.Para{Text: reportdoc.T("Campaigns:")}, reportdoc.List{Items: srcs})
	for _, g := range r.Groups {
		sec := reportdoc.Section{Title: reportdoc.T(g.Name()), ID: g.FileName()}
		tab := reportdoc.Table{Header: []string{"speed m/s", "cell", "runs", "bounded distance m", "bounded time s", "fit distance m", "residual m"}}
		for i, row := range g.Rows() {
			tab.Rows = append(tab.Rows, reportdoc.Row{Cells: []reportdoc.Cell{reportdoc.NumC(speed(row.V)),
				{Text: reportdoc.T(g.Cells[i].ID), Title: g.Cells[i].BoundText}, reportdoc.NumC(strconv.Itoa(row.Runs)),
				reportdoc.NumC(f4(row.BoundDistance)), reportdoc.NumC(f4(row.BoundTime)), reportdoc.NumC(f4(row.FitDistance)), reportdoc.NumC(signed(row.Residual))}})
		}
		sec.Blocks = append(sec.Blocks, tab, reportdoc.List{Items: []reportdoc.Text{
			reportdoc.T(fitLine("bounded distances", g.Env.Bound)), reportdoc.T(fitLine("runs", g.Env.Runs))}})
		if g.Limit > 0 {
			sec.Blocks = append(sec.Blocks, reportdoc.Para{Text: reportdoc.Text{reportdoc.Strong(r.LimitLine(g))}})
		}
		fig := reportdoc.Figure{Title: g.Name(), Alt: "bounded stopping distance against speed, " + g.Name(),
			Caption: "bounded distance (red) and each run's travel (grey) against speed; the fit is drawn only inside the tested speeds"}
		if png, err := g.Image("png"); err != nil {
			fig.Err = err.Error()
		} else {
			fig.PNG = png
		}
		sec.Blocks = append(sec.Blocks, fig)
		tfig := reportdoc.Figure{Title: g.Name() + ", time", Alt: "bounded time to still against speed, " + g.Name(),
			Caption: "bounded time to still (red) and each run's time (grey) against speed"}
		if png, err := g.TimeImage("png"); err != nil {
			tfig.Err = err.Error()
		} else {
			tfig.PNG = png
		}
		sec.Blocks = append(sec.Blocks, tfig)
		if len(g.Env.Splits) > 0 {
			st := reportdoc.Table{Header: SplitHeader}
			for _, sp := range g.Env.Splits {
				var cells []reportdoc.Cell
				for _, c := range SplitCells(sp) {
					cells = append(cells, reportdoc.NumC(c))
				}
				st.Rows = append(st.Rows, reportdoc.Row{Cells: cells})
			}
			sec.Blocks = append(sec.Blocks, reportdoc.Para{Text: reportdoc.T("The bounded distance split into the response part (trigger to the first slower frame at the board, then to the measured deceleration) and the braking part; each time is the slowest run's.")}, st)
		}
		d.Sections = append(d.Sections, sec)
	}
	var cfg []reportdoc.Text
	for _, l := range r.ConfigLines() {
		cfg = append(cfg, reportdoc.T(l))
	}
	d.Sections = append(d.Sections, reportdoc.Section{Title: reportdoc.T("Configuration"), ID: "configuration", Blocks: []reportdoc.Block{reportdoc.List{Items: cfg}}})
	var notes []reportdoc.Text
	for _, n := range r.Notes {
		notes = append(notes, reportdoc.T(n))
	}
	notes = append(notes, reportdoc.T("the envelope answers only inside the tested speeds: it is never extrapolated"))
	d.Sections = append(d.Sections, reportdoc.Section{Title: reportdoc.T("Notes"), ID: "notes", Blocks: []reportdoc.Block{reportdoc.List{Items: notes}}})
	return d
}

// HTML writes the self-contained page.
func (r *Report) HTML(w io.Writer) error { return reportdoc.HTML(w, r.Document()) }

// Nav2YAML is the collision monitor's parameters (judge/envelope's, from the zone's envelopes).
func (r *Report) Nav2YAML() ([]byte, error) {
	if r.Options.Footprint == nil {
		return nil, refuse("--nav2 needs --footprint LxW: the stop polygon is the robot body grown by the bounded stopping distance, and the toolkit does not know the body")
	}
	b, err := r.Zone.CollisionMonitorYAML()
	if err != nil {
		return nil, refuse("--nav2: %v", err)
	}
	return b, nil
}

// SmootherYAML is the velocity smoother's max_decel (judge/envelope's).
func (r *Report) SmootherYAML() ([]byte, error) {
	if r.SmootherErr != "" {
		return nil, refuse("--smoother: %s", r.SmootherErr)
	}
	b, err := r.Smoother.VelocitySmootherYAML()
	if err != nil {
		return nil, refuse("--smoother: %v", err)
	}
	return b, nil
}

// JSON types: every number a campaign.Num (NaN null, infinities "inf").
type (
	jsonFit struct {
		ResponseTime campaign.Num   `json:"response_time_s"`
		Decel        campaign.Num   `json:"decel_m_s2"`
		Residuals    []campaign.Num `json:"residuals_m"`
		RMS          campaign.Num   `json:"rms_m"`
		Max          campaign.Num   `json:"max_abs_residual_m"`
		R2           campaign.Num   `json:"r2"`
		Clamped      string         `json:"clamped,omitempty"`
	}
	jsonSpeed struct {
		V             campaign.Num   `json:"speed_m_s"`
		Cell          CellRef        `json:"cell"`
		Distances     []campaign.Num `json:"travel_m"`
		Times         []campaign.Num `json:"still_s"`
		Responses     []campaign.Num `json:"response_s"`
		Decels        []campaign.Num `json:"decel_s"`
		Split         *jsonSplit     `json:"split,omitempty"`
		BoundDistance campaign.Num   `json:"bound_distance_m"`
		BoundTime     campaign.Num   `json:"bound_time_s"`
		FitDistance   campaign.Num   `json:"fit_distance_m"`
	}
	jsonSplit struct {
		ResponseTime     campaign.Num `json:"response_s"`
		DecelTime        campaign.Num `json:"decel_s"`
		ResponseDistance campaign.Num `json:"response_m"`
		ActuatorDistance campaign.Num `json:"actuators_m"`
		BrakingDistance  campaign.Num `json:"braking_m"`
	}
	jsonGroup struct {
		Path      string       `json:"path"`
		Direction string       `json:"direction"`
		Speeds    []jsonSpeed  `json:"speeds"`
		Bound     jsonFit      `json:"bound_fit"`
		Runs      jsonFit      `json:"runs_fit"`
		Limit     campaign.Num `json:"speed_limit_m_s"` // null when no clearance was asked
	}
	jsonConfig struct {
		Footprint     *envelope.Footprint `json:"footprint"`
		StopZone      *envelope.Footprint `json:"stop_zone"`
		ApproachTime  campaign.Num        `json:"time_before_collision_s"`
		SmootherDecel []campaign.Num      `json:"smoother_max_decel,omitempty"`
		SmootherErr   string              `json:"smoother_error,omitempty"`
		Clearance     campaign.Num        `json:"clearance_m"`
		Lines         []string            `json:"lines"`
	}
	jsonReport struct {
		Kind    string      `json:"kind"`
		Sources []Source    `json:"sources"`
		Groups  []jsonGroup `json:"envelopes"`
		Config  jsonConfig  `json:"configuration"`
		Notes   []string    `json:"notes"`
	}
)

// Kind marks the JSON.
const Kind = "rosorin.envelope"

func nums(xs []float64) []campaign.Num {
	out := make([]campaign.Num, len(xs))
	for i, x := range xs {
		out[i] = campaign.Num(x)
	}
	return out
}

func fitJSON(f envelope.Fit) jsonFit {
	return jsonFit{campaign.Num(f.ResponseTime), campaign.Num(f.Decel), nums(f.Residuals), campaign.Num(f.RMS), campaign.Num(f.Max), campaign.Num(f.R2), f.Clamped}
}

// JSON writes the whole envelope as one indented JSON object.
func (r *Report) JSON(w io.Writer) error {
	out := jsonReport{Kind: Kind, Sources: r.Sources, Notes: r.Notes, Config: jsonConfig{Footprint: r.Options.Footprint, ApproachTime: campaign.Num(math.NaN()),
		Clearance: campaign.Num(math.NaN()), Lines: r.ConfigLines(), SmootherErr: r.SmootherErr}}
	if r.Options.Clearance > 0 {
		out.Config.Clearance = campaign.Num(r.Options.Clearance)
	}
	if r.Options.Footprint != nil {
		if z, err := r.Zone.StopZone(); err == nil {
			out.Config.StopZone = &z
		}
	}
	if t, err := r.Zone.ApproachTime(); err == nil {
		out.Config.ApproachTime = campaign.Num(t)
	}
	if r.SmootherErr == "" {
		d, _ := r.Smoother.SmootherDecel()
		out.Config.SmootherDecel = nums(d[:])
	}
	for _, g := range r.Groups {
		jg := jsonGroup{Path: g.Path, Direction: g.Direction, Bound: fitJSON(g.Env.Bound), Runs: fitJSON(g.Env.Runs), Limit: campaign.Num(math.NaN())}
		if g.Limit > 0 {
			jg.Limit = campaign.Num(g.Limit)
		}
		for i, s := range g.Env.Speeds {
			js := jsonSpeed{V: campaign.Num(s.V), Cell: g.Cells[i], Distances: nums(s.Distances), Times: nums(s.Times),
				Responses: nums(s.Responses), Decels: nums(s.Decels), BoundDistance: campaign.Num(s.BoundDistance), BoundTime: campaign.Num(s.BoundTime),
				FitDistance: campaign.Num(g.Env.Bound.Distance(s.V))}
			for _, sp := range g.Env.Splits {
				if sp.V == s.V {
					js.Split = &jsonSplit{campaign.Num(sp.ResponseTime), campaign.Num(sp.DecelTime), campaign.Num(sp.ResponseDistance),
						campaign.Num(sp.ActuatorDistance), campaign.Num(sp.BrakingDistance)}
				}
			}
			jg.Speeds = append(jg.Speeds, js)
		}
		out.Groups = append(out.Groups, jg)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(out)
}
