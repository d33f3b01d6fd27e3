package stand

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/target"
)

// CharPhase is one phase of characterize: the wheels held in one state for a while.
type CharPhase struct {
	Name     string
	Enabled  bool // motion enabled
	Commands bool // the drive command is published (zero for the still phases while enabled)
	Twist    kinematics.Twist
	Dur      time.Duration
	// ProofMotion marks the motions the proof spins at (fwd 0.2, fwd 0.35, rot 1.0): only they and the still
	// phases place the suggested threshold.
	ProofMotion bool
}

// Spinning reports whether the phase turns the wheels.
func (c CharPhase) Spinning() bool { return c.Twist != (kinematics.Twist{}) }

// DefaultPhases are the seed's: idle, enabled still, forward 0.1, 0.2, 0.35 m/s and rotate 1.0 rad/s, with
// still phases between (a spin's run-down must not count as the next spin, nor the reverse).
func DefaultPhases() []CharPhase {
	ph := []CharPhase{
		{Name: "idle (disabled)", Dur: 3 * time.Second},
		{Name: "enabled, still", Enabled: true, Commands: true, Dur: 3 * time.Second},
	}
	for i, m := range []struct {
		name  string
		tw    kinematics.Twist
		proof bool
	}{{"forward 0.1", kinematics.Twist{VX: 0.1}, false}, {"forward 0.2", Fwd02.Twist, true}, {"forward 0.35", Fwd035.Twist, true},
		{"rotate 1.0", Rot10.Twist, true}} {
		ph = append(ph, CharPhase{Name: m.name, Enabled: true, Commands: true, Twist: m.tw, Dur: 4 * time.Second, ProofMotion: m.proof},
			CharPhase{Name: fmt.Sprintf("still %d", i+1), Enabled: true, Commands: true, Dur: 3 * time.Second})
	}
	return ph
}

// phaseSettle is left out at the start of each phase: the wheels spin up or run down in about 0.7 s
// (chapter 19: 0.35 m/s still 0.5-0.75 s after a stop).
const phaseSettle = time.Second

// CharReport is the result of characterize.
type CharReport struct {
	Tool       string                 `json:"tool"`
	Version    string                 `json:"version"`
	Target     string                 `json:"target"`
	DriverBin  *basebin.Bin           `json:"driver_bin,omitempty"`
	Start      time.Time              `json:"start"`
	End        time.Time              `json:"end"`
	Config     json.RawMessage        `json:"-"`
	Levels     []vibration.PhaseLevel `json:"-"`
	Lines      []string               `json:"lines"`
	Suggested  float64                `json:"-"`
	Why        string                 `json:"why"`
	Threshold  float64                `json:"threshold_in_use"`
	Samples    int                    `json:"samples"`
	Aborted    string                 `json:"aborted,omitempty"`
	Teardown   string                 `json:"teardown"`
	TeardownOK bool                   `json:"teardown_ok"`
	EndLine    string                 `json:"end_line"`
}

// OK reports whether characterize measured every phase, suggested a threshold and disabled the wheels.
func (c *CharReport) OK() bool {
	return c.Aborted == "" && c.TeardownOK && !math.IsNaN(c.Suggested) && len(c.Levels) > 0
}

// Characterize measures the vibration level of each phase from the driver's IMU stream and suggests a
// threshold (stand.SuggestThreshold). The guards and the teardown are the proof's.
func Characterize(ctx context.Context, t target.Target, phases []CharPhase, o Options) (*CharReport, error) {
	if err := o.Params.Validate(); err != nil {
		return nil, err
	}
	r := newRunner(t, o, "stopproof characterize")
	cr := &CharReport{Tool: "stopproof characterize", Target: t.Describe(), Start: r.t0.UTC(), Threshold: o.Params.Threshold,
		Suggested: math.NaN(), DriverBin: r.rep.DriverBin}
	if _, err := r.open(ctx); err != nil {
		cr.Aborted, cr.Teardown, cr.TeardownOK = r.rep.Aborted, r.rep.Teardown, true
		return cr, err
	}
	cr.Config = r.rep.Config
	defer func() {
		r.teardown()
		cr.Teardown, cr.TeardownOK, cr.EndLine, cr.End = r.rep.Teardown, r.rep.TeardownOK, r.rep.EndLine, r.rep.End
		r.core.EndLines()
	}()
	stopped := func(what string, err error) (*CharReport, error) {
		cr.Aborted = fmt.Sprintf("%s: %v", what, err)
		r.printf("%s", cr.Aborted)
		return cr, nil
	}
	st, err := r.core.WaitDriver(ctx, 0)
	if err != nil {
		return stopped("no driver ready", err)
	}
	var total time.Duration
	for _, ph := range phases {
		total += ph.Dur
	}
	r.contactLogFor(ctx, st, total+time.Minute) // contact.go
	rec, err := t.RecordIMU(ctx)
	if err != nil {
		return stopped("IMU stream", err)
	}
	defer rec.Close()
	pub, err := t.Publisher(ctx, "")
	if err != nil {
		return stopped("command publisher", err)
	}
	defer pub.Close()

	var sp []vibration.Phase
	enabled := false
	for i, ph := range phases {
		if ph.Enabled != enabled {
			r.ev.Logf("enable %v", ph.Enabled)
			if err := t.Enable(ctx, ph.Enabled); err != nil {
				cr.Aborted = fmt.Sprintf("%s: enable %v: %v", ph.Name, ph.Enabled, err)
				break
			}
			enabled = ph.Enabled
		}
		r.printf("[%d/%d] %s for %.0f s ...", i+1, len(phases), ph.Name, ph.Dur.Seconds())
		from := r.clk.Now()
		end := from.Add(ph.Dur)
		refused := false
		err := r.core.Drive(ctx, o.CmdPeriod, end, func(ctx context.Context) error {
			if !ph.Commands {
				return nil
			}
			qctx, cancel := context.WithTimeout(ctx, time.Second)
			err := pub.Send(qctx, ph.Twist)
			cancel()
			if err != nil {
				refused = true
				return err
			}
			r.ev.Logf("cmd %+.2f %+.2f %+.2f", ph.Twist.VX, ph.Twist.VY, ph.Twist.WZ)
			return nil
		})
		switch {
		case err != nil && refused:
			cr.Aborted = fmt.Sprintf("%s: command refused: %v", ph.Name, err)
		case err != nil:
			cr.Aborted = "interrupted: " + err.Error()
		}
		if cr.Aborted != "" {
			break
		}
		sp = append(sp, vibration.Phase{Name: ph.Name, From: r.rel(from.Add(phaseSettle)), To: r.rel(end), Spinning: ph.Spinning()})
	}
	if cr.Aborted != "" {
		r.printf("%s", cr.Aborted)
	}
	var samples []vibration.Sample
	for _, s := range rec.Samples() {
		samples = append(samples, vibration.Sample{T: r.rel(s.At), GyroX: s.Gyro[0], GyroY: s.Gyro[1], GyroZ: s.Gyro[2]})
	}
	cr.Samples = len(samples)
	cr.Levels = vibration.PhaseLevelsWith(samples, sp, o.Params)
	r.printf("")
	for _, l := range cr.Levels {
		cr.Lines = append(cr.Lines, l.Line())
		r.printf("%s", l.Line())
	}
	if len(cr.Levels) > 0 {
		// The threshold must separate still from the motions the proof spins at; a slower phase (forward 0.1)
		// is shown for reference but would drag the threshold toward the still level.
		var judged []vibration.PhaseLevel
		for i, l := range cr.Levels {
			if !l.Spinning || phases[i].ProofMotion {
				judged = append(judged, l)
			}
		}
		cr.Suggested, cr.Why = vibration.SuggestThreshold(judged)
		r.printf("suggested threshold (still phases against the proof's motions): %s", cr.Why)
		if !math.IsNaN(cr.Suggested) {
			r.printf("threshold in use: %.4f rad/s (pass --threshold to change it)", o.Params.Threshold)
		}
	}
	return cr, nil
}

// MarshalJSON writes the levels with null for unmeasured numbers (encoding/json refuses NaN).
func (c CharReport) MarshalJSON() ([]byte, error) {
	type level struct {
		Name     string   `json:"name"`
		Spinning bool     `json:"spinning"`
		From     *float64 `json:"from_s"`
		To       *float64 `json:"to_s"`
		Median   *float64 `json:"median"`
		P05      *float64 `json:"p05"`
		P95      *float64 `json:"p95"`
		Max      *float64 `json:"max"`
		Windows  int      `json:"windows"`
		NoData   int      `json:"no_data"`
	}
	type alias CharReport
	out := struct {
		alias
		Config    json.RawMessage `json:"driver_config,omitempty"`
		Levels    []level         `json:"levels"`
		Suggested *float64        `json:"suggested_threshold"`
	}{alias: alias(c), Config: c.Config, Suggested: num(c.Suggested)}
	for _, l := range c.Levels {
		out.Levels = append(out.Levels, level{l.Name, l.Spinning, num(l.From), num(l.To), num(l.Median), num(l.P05),
			num(l.P95), num(l.Max), l.Windows, l.NoData})
	}
	return json.Marshal(out)
}
