//go:build linux

package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rosorin/rosorin/proofs/envelope/envelopetest"
)

// envelopeCamp writes a synthetic floor campaign folder (no robot, no campaign runner: envelopetest writes the
// records a floor campaign leaves) and returns it.
func envelopeCamp(t *testing.T, c envelopetest.Campaign) string {
	t.Helper()
	dir, err := c.Write(filepath.Join(t.TempDir(), "camp"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// envelopeJSON runs stopproof envelope --json and decodes it.
type envelopeOut struct {
	Envelopes []struct {
		Path      string `json:"path"`
		Direction string `json:"direction"`
		Speeds    []struct {
			V             float64   `json:"speed_m_s"`
			Travel        []float64 `json:"travel_m"`
			BoundDistance float64   `json:"bound_distance_m"`
			BoundTime     float64   `json:"bound_time_s"`
		} `json:"speeds"`
		Bound struct {
			ResponseTime float64 `json:"response_time_s"`
			Decel        float64 `json:"decel_m_s2"`
		} `json:"bound_fit"`
		Limit *float64 `json:"speed_limit_m_s"`
	} `json:"envelopes"`
}

func envelopeJSON(t *testing.T, args ...string) envelopeOut {
	t.Helper()
	out, code := stopproof(t, time.Minute, append([]string{"envelope", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var e envelopeOut
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	return e
}

// The known model (t_r 0.15 s, a 1.0 m/s²) at 0.1, 0.2 and 0.35 m/s forward and left: the printed bounds and
// fit, the clearance's speed, every file, the Nav2 YAML's stop polygon = footprint + the bound at 0.35 m/s.
func TestEnvelopeCommand(t *testing.T) {
	camp := envelopeCamp(t, envelopetest.Campaign{Directions: []string{"forward", "left"}})
	e := envelopeJSON(t, camp)
	if len(e.Envelopes) != 2 || e.Envelopes[0].Direction != "forward" || len(e.Envelopes[0].Speeds) != 3 {
		t.Fatalf("envelopes: %+v", e.Envelopes)
	}
	fwd := e.Envelopes[0]
	if fwd.Limit != nil {
		t.Errorf("no clearance asked, limit %v: want null", *fwd.Limit)
	}
	if f := fwd.Bound; math.Abs(f.ResponseTime-0.15) > 0.03 || math.Abs(f.Decel-1) > 0.15 {
		t.Errorf("fit t_r %v a %v: want about 0.15 s and 1.0 m/s²", f.ResponseTime, f.Decel)
	}

	outDir := t.TempDir()
	p := func(name string) string { return filepath.Join(outDir, name) }
	out, code := stopproof(t, time.Minute, "envelope", "--clearance", "0.06", "--footprint", "0.25x0.20", "--html", p("env.html"),
		"--png", p("png"), "--svg", p("svg"), "--nav2", p("cm.yaml"), "--smoother", p("vs.yaml"), camp)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	max := fwd.Speeds[2]
	for _, want := range []string{
		"estop forward (3 tested speeds, 0.1..0.35 m/s)", "estop left (3 tested speeds, 0.1..0.35 m/s)",
		"| speed m/s | runs | bounded distance m | bounded time s | fit distance m | residual m |",
		"|      0.35 |    8 |             " + strconv.FormatFloat(max.BoundDistance, 'f', 4, 64) + " |         " + strconv.FormatFloat(max.BoundTime, 'f', 4, 64) + " |",
		"fit over the bounded distances: t_r " + num3t(fwd.Bound.ResponseTime) + " s, a " + num3t(fwd.Bound.Decel) + " m/s²",
		"for a clearance of 0.06 m: 0.2 m/s (bounded stopping distance " + strconv.FormatFloat(fwd.Speeds[1].BoundDistance, 'f', 3, 64) + " m)",
		"stop zone: front " + num3t(0.125+max.BoundDistance), "approach: time_before_collision", "velocity smoother: max_decel [-",
		"response times: the floor campaign's run records carry none", "never extrapolated",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	y, err := os.ReadFile(p("cm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		CM struct {
			P struct {
				Stop struct {
					Points     []float64 `yaml:"points"`
					ActionType string    `yaml:"action_type"`
				} `yaml:"EnvelopeStop"`
			} `yaml:"ros__parameters"`
		} `yaml:"collision_monitor"`
	}
	if err := yaml.Unmarshal(y, &doc); err != nil {
		t.Fatalf("the Nav2 YAML does not parse: %v\n%s", err, y)
	}
	front := math.Inf(-1)
	for i := 0; i < len(doc.CM.P.Stop.Points); i += 2 {
		front = math.Max(front, doc.CM.P.Stop.Points[i])
	}
	if doc.CM.P.Stop.ActionType != "stop" || math.Abs(front-(0.125+max.BoundDistance)) > 1e-12 {
		t.Errorf("stop polygon %+v: forward extent %v, want footprint 0.125 + bound %v", doc.CM.P.Stop, front, max.BoundDistance)
	}
	var vs map[string]any
	if b, err := os.ReadFile(p("vs.yaml")); err != nil || yaml.Unmarshal(b, &vs) != nil || vs["velocity_smoother"] == nil {
		t.Errorf("smoother YAML: %v %v", err, vs)
	}
	page, err := os.ReadFile(p("env.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `src="data:image/png;base64,`) || !strings.Contains(string(page), "default-src 'none'") {
		t.Error("the page has no inline plot or no CSP")
	}
	for _, bad := range []string{"http://", "https://", "<script", "<link", "@import"} {
		if strings.Contains(string(page), bad) {
			t.Errorf("the page contains %q: it must fetch nothing", bad)
		}
	}
	for _, f := range []string{"png/envelope-estop-forward.png", "png/envelope-estop-left.png", "svg/envelope-estop-forward.svg", "svg/envelope-estop-left.svg"} {
		if st, err := os.Stat(p(f)); err != nil || st.Size() < 500 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func num3t(x float64) string {
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(x, 'f', 3, 64), "0"), ".")
	return s
}

// The negative control: the same campaign with a weaker brake (a = 0.5) gives larger bounds at every speed
// and a lower speed for the same clearance.
func TestEnvelopeWeakBrake(t *testing.T) {
	good := envelopeJSON(t, "--clearance", "0.06", envelopeCamp(t, envelopetest.Campaign{}))
	weak := envelopeJSON(t, "--clearance", "0.06", envelopeCamp(t, envelopetest.Campaign{Decel: 0.5}))
	g, w := good.Envelopes[0], weak.Envelopes[0]
	for i := range g.Speeds {
		if !(w.Speeds[i].BoundDistance > g.Speeds[i].BoundDistance) {
			t.Errorf("at %v m/s: weak %v not above %v", g.Speeds[i].V, w.Speeds[i].BoundDistance, g.Speeds[i].BoundDistance)
		}
	}
	if g.Limit == nil || w.Limit == nil || *g.Limit != 0.2 || *w.Limit != 0.1 {
		t.Errorf("limits for 0.06 m: %v and %v, want 0.2 (good) and 0.1 (weak)", g.Limit, w.Limit)
	}
	if math.Abs(w.Bound.Decel-0.5) > 0.08 || !(w.Bound.Decel < g.Bound.Decel) {
		t.Errorf("fitted a: weak %v, good %v", w.Bound.Decel, g.Bound.Decel)
	}
}

// Each refusal: a clear message, exit 2, nothing written.
func TestEnvelopeRefusals(t *testing.T) {
	good := envelopeCamp(t, envelopetest.Campaign{})
	for _, tc := range []struct {
		name  string
		camps []string
		flags []string
		want  string
	}{
		{"stand campaign", []string{envelopeCamp(t, envelopetest.Campaign{Proof: "stand"})}, nil, "is a stand campaign"},
		{"one speed", []string{envelopeCamp(t, envelopetest.Campaign{Speeds: []float64{0.2}})}, nil, "an envelope needs at least two tested speeds"},
		{"failed cell", []string{envelopeCamp(t, envelopetest.Campaign{MaxTravelM: 0.1})}, nil,
			"the envelope is built only from cells that PASS their verification: cell estop fwd 0.35 (synthetic floor) FAILs: "},
		{"no travel requirement", []string{envelopeCamp(t, envelopetest.Campaign{MaxTravelM: -1})}, nil, "has no travel requirement (max_travel_m)"},
		{"extrapolation", []string{good}, []string{"--clearance", "0.01"}, "a slower speed was not tested and the envelope is never extrapolated"},
		{"nav2 without footprint", []string{good}, nil, "--nav2 needs --footprint"},
		{"smoother without the y axis", []string{good}, []string{"--footprint", "0.25x0.20"}, "--smoother: no envelope for the y axis"},
		{"bad footprint", []string{good}, []string{"--footprint", "0.25"}, "want LxW in metres"},
		{"no folder", nil, nil, "which campaign folders?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outDir := t.TempDir()
			args := append([]string{"envelope", "--html", filepath.Join(outDir, "e.html"), "--png", filepath.Join(outDir, "png"),
				"--nav2", filepath.Join(outDir, "cm.yaml"), "--smoother", filepath.Join(outDir, "vs.yaml")}, tc.flags...)
			out, code := stopproof(t, time.Minute, append(args, tc.camps...)...)
			if code != 2 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, want 2 with %q:\n%s", code, tc.want, out)
			}
			if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
				t.Errorf("a refusal wrote %d files (%s...)", len(ents), ents[0].Name())
			}
		})
	}
}
