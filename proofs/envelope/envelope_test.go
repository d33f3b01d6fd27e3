package envelope_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	jenv "github.com/rosorin/rosorin/judge/envelope"
	"github.com/rosorin/rosorin/proofs/envelope"
	"github.com/rosorin/rosorin/proofs/envelope/envelopetest"
)

func write(t *testing.T, c envelopetest.Campaign) string {
	t.Helper()
	dir, err := c.Write(filepath.Join(t.TempDir(), "camp"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func footprint(t *testing.T) *jenv.Footprint {
	f, err := envelope.ParseFootprint("0.25x0.20")
	if err != nil {
		t.Fatal(err)
	}
	return &f
}

// The known model (t_r 0.15 s, a 1.0 m/s²): every bounded distance lies at or above the model's travel and
// within the runs' noise of it, the bounded fit finds the model, the clearance picks the tested speed.
func TestKnownModel(t *testing.T) {
	c := envelopetest.Campaign{Directions: []string{"forward", "left"}}
	rep, err := envelope.Load([]string{write(t, c)}, envelope.Options{Footprint: footprint(t), Clearance: 0.06, AngularDecel: -3.2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Name() != "estop forward" || rep.Groups[1].Name() != "estop left" {
		t.Fatalf("groups: %v", rep.Groups)
	}
	for _, g := range rep.Groups {
		for _, s := range g.Env.Speeds {
			m := c.Travel(s.V)
			if s.BoundDistance < m || s.BoundDistance > m+0.0021 {
				t.Errorf("%s at %v: bound %v, model %v (+ noise < 0.002)", g.Name(), s.V, s.BoundDistance, m)
			}
			if len(s.Distances) != 8 || len(s.Responses) != 0 {
				t.Errorf("%s at %v: %d runs, %d responses", g.Name(), s.V, len(s.Distances), len(s.Responses))
			}
			mx := 0.0
			for _, d := range s.Distances {
				mx = math.Max(mx, d)
			}
			if s.BoundDistance != mx { // R = C = 0.8, n = 8: the campaign's bound is the maximum
				t.Errorf("%s at %v: bound %v is not the campaign's (the maximum %v)", g.Name(), s.V, s.BoundDistance, mx)
			}
		}
		if f := g.Env.Bound; math.Abs(f.ResponseTime-0.15) > 0.03 || math.Abs(f.Decel-1.0) > 0.15 {
			t.Errorf("%s: fit t_r %v a %v, want about 0.15 and 1.0", g.Name(), f.ResponseTime, f.Decel)
		}
		if g.Limit != 0.2 {
			t.Errorf("%s: limit for 0.06 m %v, want 0.2 m/s", g.Name(), g.Limit)
		}
	}
	var out bytes.Buffer
	if err := rep.Text(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"estop forward (3 tested speeds, 0.1..0.35 m/s)", "bounded distance m", "fit over the bounded distances: t_r",
		"for a clearance of 0.06 m: 0.2 m/s (bounded stopping distance 0.05", "stop zone: front 0.2", "velocity smoother: max_decel [-",
		"response times: the floor campaign's run records carry none"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// The Nav2 YAML parses and its stop polygon's forward extent is the footprint's plus the bound at 0.35 m/s.
	y, err := rep.Nav2YAML()
	if err != nil {
		t.Fatal(err)
	}
	front, left := stopExtent(t, y)
	fwd, lft := rep.Groups[0].Env.AtMax().BoundDistance, rep.Groups[1].Env.AtMax().BoundDistance
	if math.Abs(front-(0.125+fwd)) > 1e-12 || math.Abs(left-(0.10+lft)) > 1e-12 {
		t.Errorf("stop polygon front %v left %v, want %v and %v", front, left, 0.125+fwd, 0.10+lft)
	}
	s, err := rep.SmootherYAML()
	if err != nil {
		t.Fatal(err)
	}
	var sm struct {
		VS struct {
			P struct {
				MaxDecel []float64 `yaml:"max_decel"`
			} `yaml:"ros__parameters"`
		} `yaml:"velocity_smoother"`
	}
	if err := yaml.Unmarshal(s, &sm); err != nil {
		t.Fatal(err)
	}
	if d := sm.VS.P.MaxDecel; len(d) != 3 || d[0] != -rep.Groups[0].Env.Bound.Decel || d[1] != -rep.Groups[1].Env.Bound.Decel || d[2] != -3.2 {
		t.Errorf("max_decel %v", d)
	}
}

// stopExtent reads the collision monitor YAML back and returns the stop polygon's largest x and y.
func stopExtent(t *testing.T, y []byte) (front, left float64) {
	t.Helper()
	var doc struct {
		CM struct {
			P struct {
				Polygons []string `yaml:"polygons"`
				Stop     struct {
					Type       string    `yaml:"type"`
					Points     []float64 `yaml:"points"`
					ActionType string    `yaml:"action_type"`
				} `yaml:"EnvelopeStop"`
			} `yaml:"ros__parameters"`
		} `yaml:"collision_monitor"`
	}
	if err := yaml.Unmarshal(y, &doc); err != nil {
		t.Fatalf("the Nav2 YAML does not parse: %v\n%s", err, y)
	}
	st := doc.CM.P.Stop
	if st.ActionType != "stop" || len(st.Points) != 8 {
		t.Fatalf("stop polygon %+v", st)
	}
	front, left = math.Inf(-1), math.Inf(-1)
	for i := 0; i < len(st.Points); i += 2 {
		front, left = math.Max(front, st.Points[i]), math.Max(left, st.Points[i+1])
	}
	return front, left
}

// The negative control: the same campaign with a weaker brake (a = 0.5) gives larger bounds at every speed,
// a weaker fitted deceleration and a lower speed for the same clearance.
func TestWeakBrake(t *testing.T) {
	opt := envelope.Options{Footprint: footprint(t), Clearance: 0.06}
	good, err := envelope.Load([]string{write(t, envelopetest.Campaign{})}, opt)
	if err != nil {
		t.Fatal(err)
	}
	weak, err := envelope.Load([]string{write(t, envelopetest.Campaign{Decel: 0.5})}, opt)
	if err != nil {
		t.Fatal(err)
	}
	g, w := good.Groups[0], weak.Groups[0]
	for i := range g.Env.Speeds {
		if !(w.Env.Speeds[i].BoundDistance > g.Env.Speeds[i].BoundDistance) {
			t.Errorf("at %v m/s: weak brake bound %v not above %v", g.Env.Speeds[i].V, w.Env.Speeds[i].BoundDistance, g.Env.Speeds[i].BoundDistance)
		}
	}
	if math.Abs(w.Env.Bound.Decel-0.5) > 0.08 {
		t.Errorf("weak brake fitted a %v, want about 0.5", w.Env.Bound.Decel)
	}
	if g.Limit != 0.2 || w.Limit != 0.1 {
		t.Errorf("limits for 0.06 m: %v (good) and %v (weak), want 0.2 and 0.1", g.Limit, w.Limit)
	}
	gy, _ := good.Nav2YAML()
	wy, _ := weak.Nav2YAML()
	gf, _ := stopExtent(t, gy)
	wf, _ := stopExtent(t, wy)
	if !(wf > gf+0.05) { // the bound at 0.35 m/s grows by about 0.061 m (v²/(2a): 0.061 -> 0.1225)
		t.Errorf("stop zone front: weak %v, good %v", wf, gf)
	}
}

func TestRefusals(t *testing.T) {
	base := envelopetest.Campaign{}
	two := func(c envelopetest.Campaign) []string { return []string{write(t, c)} }
	for _, tc := range []struct {
		name string
		dirs []string
		opt  envelope.Options
		want string
	}{
		{"stand", two(envelopetest.Campaign{Proof: "stand"}), envelope.Options{}, "is a stand campaign"},
		{"one speed", two(envelopetest.Campaign{Speeds: []float64{0.2}}), envelope.Options{}, "an envelope needs at least two tested speeds"},
		{"failed cell", two(envelopetest.Campaign{MaxTravelM: 0.1}), envelope.Options{},
			"the envelope is built only from cells that PASS their verification: cell estop fwd 0.35 (synthetic floor) FAILs: "},
		{"no travel requirement", two(envelopetest.Campaign{MaxTravelM: -1}), envelope.Options{}, "has no travel requirement (max_travel_m)"},
		{"clearance below the slowest", two(base), envelope.Options{Clearance: 0.01}, "the envelope is never extrapolated"},
		{"turn", two(envelopetest.Campaign{Directions: []string{"turn"}}), envelope.Options{}, "a turn's stop is an angle"},
		{"same speed twice", []string{write(t, base), write(t, envelopetest.Campaign{Name: "other"})}, envelope.Options{}, "is in two campaigns"},
		{"no folder", nil, envelope.Options{}, "which campaign folders?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := envelope.Load(tc.dirs, tc.opt)
			var r *envelope.Refusal
			if !errors.As(err, &r) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want a refusal with %q", rep, err, tc.want)
			}
		})
	}
	// A campaign with only forward: no smoother (nothing measured the y axis), no Nav2 file without a footprint.
	rep, err := envelope.Load(two(base), envelope.Options{AngularDecel: -3.2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rep.SmootherYAML(); err == nil || !strings.Contains(err.Error(), "no envelope for the y axis") {
		t.Errorf("smoother without y: %v", err)
	}
	if _, err := rep.Nav2YAML(); err == nil || !strings.Contains(err.Error(), "--nav2 needs --footprint") {
		t.Errorf("nav2 without footprint: %v", err)
	}
}

// A campaign per speed: different plans, pooled by path and direction.
func TestCampaignPerSpeed(t *testing.T) {
	var dirs []string
	for i, v := range []float64{0.1, 0.2, 0.35} {
		dirs = append(dirs, write(t, envelopetest.Campaign{Name: "speed " + string(rune('a'+i)), Speeds: []float64{v}}))
	}
	rep, err := envelope.Load(dirs, envelope.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) != 3 || len(rep.Groups) != 1 || len(rep.Groups[0].Env.Speeds) != 3 {
		t.Fatalf("sources %d, groups %d", len(rep.Sources), len(rep.Groups))
	}
}

func TestHTMLAndJSON(t *testing.T) {
	rep, err := envelope.Load([]string{write(t, envelopetest.Campaign{})}, envelope.Options{Footprint: footprint(t)})
	if err != nil {
		t.Fatal(err)
	}
	var h bytes.Buffer
	if err := rep.HTML(&h); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	if !strings.Contains(page, `src="data:image/png;base64,`) || !strings.Contains(page, "default-src 'none'") {
		t.Errorf("page has no inline plot or no CSP")
	}
	for _, bad := range []string{"http://", "https://", "<script", "<link"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: it must fetch nothing", bad)
		}
	}
	var j bytes.Buffer
	if err := rep.JSON(&j); err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(j.Bytes(), &v); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	env := v["envelopes"].([]any)[0].(map[string]any)
	if env["speed_limit_m_s"] != nil { // no clearance asked: NaN, written as null
		t.Errorf("speed limit %v, want null", env["speed_limit_m_s"])
	}
	for _, f := range []string{"png", "svg"} {
		b, err := rep.Groups[0].Image(f)
		if err != nil || len(b) < 100 {
			t.Errorf("%s: %d bytes, %v", f, len(b), err)
		}
	}
}

func TestParseFootprint(t *testing.T) {
	f, err := envelope.ParseFootprint("0.25x0.20")
	if err != nil || f.Front != 0.125 || f.Left != 0.1 {
		t.Errorf("%+v %v", f, err)
	}
	for _, bad := range []string{"", "0.25", "0x0.2", "-1x2", "axb", "NaNx1"} {
		if _, err := envelope.ParseFootprint(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Runs that carry their response parts split every bounded distance: the response at the slowest run's
// times, the braking part the rest; text, HTML and JSON show it, and the note says how it was measured.
func TestKnownModelSplit(t *testing.T) {
	c := envelopetest.Campaign{Directions: []string{"forward"}, Responses: true}
	rep, err := envelope.Load([]string{write(t, c)}, envelope.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Groups[0]
	if len(g.Env.Splits) != 3 {
		t.Fatalf("splits %+v", g.Env.Splits)
	}
	for _, sp := range g.Env.Splits {
		if !(sp.ResponseTime >= 0.02 && sp.ResponseTime <= 0.03) || !(sp.DecelTime >= 0.15 && sp.DecelTime <= 0.17) {
			t.Errorf("split at %v: response %v, decel %v", sp.V, sp.ResponseTime, sp.DecelTime)
		}
		if d := sp.ResponseDistance + sp.ActuatorDistance + sp.BrakingDistance; math.Abs(d-sp.BoundDistance) > 1e-12 {
			t.Errorf("split at %v: parts %v, bound %v", sp.V, d, sp.BoundDistance)
		}
	}
	var out bytes.Buffer
	if err := rep.Text(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the bounded distance split", "to the board s", "to measured decel s", "braking m", envelope.ResponsesNote} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), envelope.NoResponses) {
		t.Errorf("text says there are no responses:\n%s", out.String())
	}
	out.Reset()
	if err := rep.JSON(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"split": {`) || !strings.Contains(out.String(), `"braking_m"`) {
		t.Errorf("JSON lacks the split:\n%s", out.String())
	}
	out.Reset()
	if err := rep.HTML(&out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "<img"); n != 2 {
		t.Errorf("HTML has %d images, want the distance and the time plots", n)
	}
	for _, f := range []string{"png", "svg"} {
		if b, err := g.TimeImage(f); err != nil || len(b) < 100 {
			t.Errorf("time plot %s: %d bytes, %v", f, len(b), err)
		}
	}
}
