package envelope

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/rosorin/rosorin/judge/envelope"
	"github.com/rosorin/rosorin/proofs/campaign"
)

// Options are the command's choices; the zero value is no footprint, no clearance and judge/envelope's
// defaults (max_points 1, no margin).
type Options struct {
	// Footprint is the robot body; nil: none given (no stop zone, no Nav2 file).
	Footprint *envelope.Footprint
	// Clearance, m: the speed limit for it per path and direction (0: none asked).
	Clearance float64
	// MaxPoints, Margin and AngularDecel go to judge/envelope.Config (AngularDecel < 0; 0: no smoother).
	MaxPoints    int
	Margin       float64
	AngularDecel float64
}

// Source is one campaign the envelope cites.
type Source struct {
	Name    string   `json:"name"`
	Folders []string `json:"folders"`
	R       float64  `json:"r"`
	C       float64  `json:"c"`
	N       int      `json:"n"` // runs a cell
	Verdict string   `json:"verdict"`
}

// CellRef is the campaign cell one tested speed comes from.
type CellRef struct {
	ID        string  `json:"id"`
	Campaign  string  `json:"campaign"`
	Speed     float64 `json:"speed"`
	N         int     `json:"n"`
	BoundText string  `json:"bound_text"`
}

// Group is one path in one direction: its envelope and the cells it came from (in the envelope's speed order).
type Group struct {
	Path, Direction string
	Env             *envelope.Envelope
	Cells           []CellRef
	// Limit is the speed limit for Options.Clearance (0 when none was asked).
	Limit float64
}

// Name is "estop forward".
func (g *Group) Name() string { return g.Path + " " + g.Direction }

// Report is the envelope of one or more floor campaigns.
type Report struct {
	Sources []Source
	Groups  []*Group
	Options Options
	// Zone is the collision monitor's configuration (the worst envelope per direction by bounded distance);
	// Smoother the velocity smoother's (the weakest fitted deceleration per direction).
	Zone, Smoother envelope.Config
	// SmootherErr says why no smoother configuration is derived ("" when it is).
	SmootherErr string
	// Notes are what the reader must know (no response times, ...).
	Notes []string
}

// Refusal is an input the envelope is not built from: the command exits 2 and writes nothing.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }

func refuse(format string, a ...any) error { return &Refusal{Msg: fmt.Sprintf(format, a...)} }

// NoResponses is the note when no run records a response time.
const NoResponses = "response times: the floor campaign's run records carry none (trigger to the first decelerating frame at the board), so the bounded distance is not split into response and braking parts; the fit's t_r is the model's, not a measured response"

// ResponsesNote says how the response parts were measured and what they are worth.
const ResponsesNote = "response parts: to the board is the trigger to the first slower motor frame (the simulator's record of every frame; a robot's driver reports its last frame only every 0.2 s, so on a robot it is not measured); to the measured deceleration is where the LiDAR odometry's 0.3 s windowed speed first fell clearly below its speed before the trigger, which lags the true onset by part of the window: the response distances are conservative and the braking part is what is left of the bounded distance"

func allFinite(xs []float64) bool { return len(xs) > 0 && countFinite(xs) == len(xs) }
func anyFinite(xs []float64) bool { return countFinite(xs) > 0 }

func countFinite(xs []float64) int {
	n := 0
	for _, x := range xs {
		if finite(x) {
			n++
		}
	}
	return n
}

// Load reads the campaign folders, checks them and builds the envelope of every path and direction.
func Load(dirs []string, opt Options) (*Report, error) {
	if len(dirs) == 0 {
		return nil, refuse("which campaign folders? e.g. stopproof envelope --clearance 0.45 reports/campaigns/floor-envelope/")
	}
	if opt.Footprint != nil {
		if _, err := (envelope.Config{Footprint: *opt.Footprint, Envelopes: []*envelope.Envelope{{Direction: "forward", Speeds: []envelope.Speed{{}}}}}).StopZone(); err != nil {
			return nil, refuse("--footprint: %v", err)
		}
	}
	if opt.Clearance < 0 || math.IsNaN(opt.Clearance) || math.IsInf(opt.Clearance, 0) {
		return nil, refuse("--clearance %v: the free distance in front of the robot, m, finite and > 0", opt.Clearance)
	}
	camps, err := loadCampaigns(dirs)
	if err != nil {
		return nil, err
	}
	rep := &Report{Options: opt}
	type key struct{ path, dir string }
	inputs := map[key]*envelope.Input{}
	cells := map[key][]CellRef{}
	var order []key
	seen := map[string]string{} // "path dir speed" -> campaign
	var partial []string        // cells whose runs measured a response part only in some runs
	splits := 0                 // tested speeds with a response part
	for _, camp := range camps {
		p := camp.Plan
		name := p.Name
		if name == "" {
			name = strings.Join(camp.Folders, ", ")
		}
		if p.Proof != campaign.ProofFloor {
			return nil, refuse("%s is a %s campaign: an envelope needs the travel after the trigger, measured on the floor (a plan with proof: floor)", strings.Join(camp.Folders, ", "), p.Proof)
		}
		results := campaign.Analyze(camp)
		src := Source{Name: name, Folders: camp.Folders, Verdict: campaign.Pass}
		if len(results) > 0 {
			src.R, src.C, src.N = results[0].ClaimR, results[0].ClaimC, results[0].Planned
		}
		for _, cr := range results {
			cell := cr.Cell
			dir := cell.Direction
			if dir == "" {
				dir = "forward"
			}
			if dir == "turn" {
				return nil, refuse("cell %s (%s): a turn's stop is an angle, not a distance: the envelope is built from forward, back, left and right", cr.ID, name)
			}
			if !(cell.MaxTravelM > 0) {
				return nil, refuse("cell %s (%s) has no travel requirement (max_travel_m): the envelope is built from cells whose travel after the trigger is required and bounded; add max_travel_m to the plan", cr.ID, name)
			}
			if cr.Verdict != campaign.Pass {
				why := strings.Join(cr.Reasons, "; ")
				for i, f := range cr.Failed {
					if i == 3 {
						why += fmt.Sprintf("; and %d more failed runs (stopproof report --campaign shows them)", len(cr.Failed)-3)
						break
					}
					why += fmt.Sprintf("; run %d: %s", f.Seq, f.Why)
				}
				return nil, refuse("the envelope is built only from cells that PASS their verification: cell %s (%s) FAILs: %s", cr.ID, name, why)
			}
			if cr.Travel == nil || !finite(float64(cr.Travel.Bound)) || !finite(float64(cr.Still.Bound)) {
				return nil, refuse("cell %s (%s): no finite bound of travel and time to still (%s)", cr.ID, name, cr.BoundText)
			}
			sk := cell.Path + " " + dir + " " + strconv.FormatFloat(cell.Speed, 'g', -1, 64)
			if other, ok := seen[sk]; ok {
				return nil, refuse("%s %s at %s m/s is in two campaigns (%s and %s): give one of them", cell.Path, dir, speed(cell.Speed), other, name)
			}
			seen[sk] = name
			sp := envelope.Speed{V: cell.Speed, BoundDistance: float64(cr.Travel.Bound), BoundTime: float64(cr.Still.Bound)}
			var resp, dec []float64
			for _, r := range camp.Records {
				if r.Cell != cr.ID || r.Outcome == campaign.Cut {
					continue
				}
				sp.Distances = append(sp.Distances, r.TravelM)
				sp.Times = append(sp.Times, r.StillS)
				resp, dec = append(resp, r.ResponseS), append(dec, r.DecelS)
			}
			// A response part is used only when every run of the cell measured it (a bound from some runs
			// would not be the slowest run's).
			if allFinite(resp) {
				sp.Responses = resp
			} else if anyFinite(resp) {
				partial = append(partial, fmt.Sprintf("%s (board response in %d of %d runs)", cr.ID, countFinite(resp), len(resp)))
			}
			if allFinite(dec) {
				sp.Decels = dec
			} else if anyFinite(dec) {
				partial = append(partial, fmt.Sprintf("%s (measured deceleration in %d of %d runs)", cr.ID, countFinite(dec), len(dec)))
			}
			if len(sp.Responses) > 0 || len(sp.Decels) > 0 {
				splits++
			}
			k := key{cell.Path, dir}
			in := inputs[k]
			if in == nil {
				in = &envelope.Input{Path: cell.Path, Direction: dir}
				inputs[k] = in
				order = append(order, k)
			}
			in.Speeds = append(in.Speeds, sp)
			cells[k] = append(cells[k], CellRef{ID: cr.ID, Campaign: name, Speed: cell.Speed, N: cr.N, BoundText: cr.BoundText})
		}
		rep.Sources = append(rep.Sources, src)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].path != order[j].path {
			return order[i].path < order[j].path
		}
		return dirRank(order[i].dir) < dirRank(order[j].dir)
	})
	for _, k := range order {
		in := inputs[k]
		if len(in.Speeds) < 2 {
			return nil, refuse("%s %s: one tested speed (%s m/s): an envelope needs at least two tested speeds (run the campaign at more speeds: at least three, up to the driver's maximum)", k.path, k.dir, speed(in.Speeds[0].V))
		}
		env, err := envelope.New(*in)
		if err != nil {
			return nil, refuse("%v", err)
		}
		cs := cells[k]
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Speed < cs[j].Speed })
		g := &Group{Path: k.path, Direction: k.dir, Env: env, Cells: cs}
		if opt.Clearance > 0 {
			lim, err := env.SpeedLimitFor(opt.Clearance)
			if err != nil {
				if errors.Is(err, envelope.ErrNoSpeedFits) {
					return nil, refuse("--clearance %s m: %v; a slower speed was not tested and the envelope is never extrapolated: test slower speeds", num3(opt.Clearance), err)
				}
				return nil, refuse("--clearance: %v", err)
			}
			g.Limit = lim
		}
		rep.Groups = append(rep.Groups, g)
	}
	if splits == 0 {
		rep.Notes = append(rep.Notes, NoResponses)
	} else {
		rep.Notes = append(rep.Notes, ResponsesNote)
	}
	if len(partial) > 0 {
		rep.Notes = append(rep.Notes, "not split (a part measured in some runs only): "+strings.Join(partial, "; "))
	}
	rep.configure()
	return rep, nil
}

// loadCampaigns groups the folders by plan (the same plan: shards of one campaign) and loads each campaign.
func loadCampaigns(dirs []string) ([]*campaign.Campaign, error) {
	type grp struct {
		plan *campaign.Plan
		dirs []string
	}
	var groups []*grp
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "plan.yaml"))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, refuse("%s: no plan.yaml: not a campaign folder", d)
			}
			return nil, refuse("%v", err)
		}
		p, err := campaign.ParsePlan(b)
		if err != nil {
			return nil, refuse("%s: %v", filepath.Join(d, "plan.yaml"), err)
		}
		var into *grp
		for _, g := range groups {
			if reflect.DeepEqual(*g.plan, *p) {
				into = g
			}
		}
		if into == nil {
			into = &grp{plan: p}
			groups = append(groups, into)
		}
		into.dirs = append(into.dirs, d)
	}
	var out []*campaign.Campaign
	for _, g := range groups {
		c, err := campaign.LoadCampaign(g.dirs...)
		if err != nil {
			return nil, refuse("%v", err)
		}
		out = append(out, c)
	}
	return out, nil
}

// configure picks the envelopes each layer's configuration comes from.
func (r *Report) configure() {
	src := make([]string, 0, len(r.Sources))
	for _, s := range r.Sources {
		src = append(src, fmt.Sprintf("%s (%s; R %s, C %s, n %d)", s.Name, strings.Join(s.Folders, ", "), num3(s.R), num3(s.C), s.N))
	}
	base := envelope.Config{Source: strings.Join(src, "; "), MaxPoints: r.Options.MaxPoints, Margin: r.Options.Margin, AngularDecel: r.Options.AngularDecel}
	if r.Options.Footprint != nil {
		base.Footprint = *r.Options.Footprint
	}
	zone, smooth := map[string]*envelope.Envelope{}, map[string]*envelope.Envelope{}
	for _, g := range r.Groups {
		e := g.Env
		if z := zone[e.Direction]; z == nil || e.AtMax().BoundDistance > z.AtMax().BoundDistance {
			zone[e.Direction] = e
		}
		if s := smooth[e.Direction]; s == nil || e.Bound.Decel < s.Bound.Decel {
			smooth[e.Direction] = e
		}
	}
	r.Zone, r.Smoother = base, base
	for _, d := range []string{"forward", "back", "left", "right"} {
		if e := zone[d]; e != nil {
			r.Zone.Envelopes = append(r.Zone.Envelopes, e)
		}
		if e := smooth[d]; e != nil {
			r.Smoother.Envelopes = append(r.Smoother.Envelopes, e)
		}
	}
	if _, err := r.Smoother.SmootherDecel(); err != nil {
		r.SmootherErr = err.Error()
	}
}

func dirRank(d string) int {
	return map[string]int{"forward": 0, "back": 1, "left": 2, "right": 3}[d]
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// speed prints a speed as the plan gives it.
func speed(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// num3 is a number with up to three decimals.
func num3(x float64) string {
	s := strconv.FormatFloat(x, 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" || s == "-" {
		return "0"
	}
	return s
}
