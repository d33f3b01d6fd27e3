package stopmon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rosorin/rosorin/driver/api"
)

// The kinds of the files this package reads (proofs/campaign.SummaryKind, proofs/envelope.Kind).
const (
	summaryKind  = "rosorin.campaign.summary"
	envelopeKind = "rosorin.envelope"
	// summaryVersion is the newest campaign summary version this reader knows (proofs/campaign.Version).
	summaryVersion = 1
)

// DefaultMargin is how much an evidence limit grows its campaign bound: +10 %, the campaign history's default
// tolerance for "has grown" (proofs/campaign.DefaultHistoryTolerance), and never less than the measurement's
// stated resolution.
const DefaultMargin = 0.10

// maxLimitsFile bounds what LoadLimits reads: a summary of 59 runs in 12 cells is about 100 kB.
const maxLimitsFile = 16 << 20

// Identity is the driver a limits file must come from.
type Identity struct {
	// Host is the machine's name as the campaign recorded it (os.Hostname); ConfigSHA256 the sha256 (hex) of
	// the driver's config file; ReportedConfigSHA256 the sha256 of the config the driver reports, compact
	// JSON (a campaign without --config records "reported:<that>"). Empty: not checked (said in Notes).
	Host                 string
	ConfigSHA256         string
	ReportedConfigSHA256 string
	// Require names the stop kinds (api.Stop*) the configuration needs limits for: a file without one is
	// refused naming it.
	Require []string
	// AcceptUnidentified accepts an envelope, which does not record its runs' host and config hash (said in
	// Notes and the source). False: refused.
	AcceptUnidentified bool
}

// Limits are the stop limits per kind, direction and speed band, with where they came from.
type Limits struct {
	// Source is the file and its campaign(s), or "config".
	Source string
	// Margin grows an evidence bound: limit = max(bound * (1 + Margin), bound + resolution). LoadLimits sets
	// DefaultMargin; a configured limit is taken as stated.
	Margin float64
	// Notes are what was left out or not checked, for people.
	Notes []string
	bands map[bandKey][]band
}

type bandKey struct{ kind, dir string }

// band is one tested speed of one kind and direction: it covers speeds above the next slower band up to speed.
type band struct {
	speed         float64 // m/s; +Inf for a configured limit without bands (every speed)
	still, travel float64 // the bound or configured limit (0: none)
	resS, resM    float64 // stated resolution of the evidence (0: not stated)
	source        string
	evidence      bool // grown by Margin and resolution
}

// Kinds lists the kinds with limits, sorted.
func (l *Limits) Kinds() []string {
	seen := map[string]bool{}
	var out []string
	for k := range l.bands {
		if !seen[k.kind] {
			seen[k.kind] = true
			out = append(out, k.kind)
		}
	}
	sort.Strings(out)
	return out
}

// Lookup is the limit a stop of kind in direction dir at speed is held against. ok is false when there is
// none; why then says so in words ("no estop limit at 0.50 m/s: above the tested speeds (up to 0.35 m/s)").
// A direction without its own limits is held against the loosest of the kind's tested directions at that
// speed (a stop slower than every tested direction's bound is still a finding), and the source says so.
func (l *Limits) Lookup(kind, dir string, speed float64) (lim api.StopLimit, ok bool, why string) {
	if l == nil {
		return api.StopLimit{}, false, "no limits loaded"
	}
	if math.IsNaN(speed) || speed < 0 {
		return api.StopLimit{}, false, fmt.Sprintf("speed %v: not a speed", speed)
	}
	if bs := l.bands[bandKey{kind, dir}]; len(bs) > 0 {
		return l.inBands(kind, dir, bs, speed)
	}
	if bs := l.bands[bandKey{kind, ""}]; len(bs) > 0 {
		return l.inBands(kind, "", bs, speed)
	}
	var dirs []string
	for k := range l.bands {
		if k.kind == kind {
			dirs = append(dirs, k.dir)
		}
	}
	if len(dirs) == 0 {
		return api.StopLimit{}, false, fmt.Sprintf("no %s limit in %s", kind, l.Source)
	}
	sort.Strings(dirs)
	var best api.StopLimit
	found := false
	var whys []string
	for _, d := range dirs {
		c, ok, w := l.inBands(kind, d, l.bands[bandKey{kind, d}], speed)
		if !ok {
			whys = append(whys, w)
			continue
		}
		if !found {
			best, found = c, true
			continue
		}
		best.MinSpeed = math.Max(best.MinSpeed, c.MinSpeed)
		best.MaxSpeed = math.Min(best.MaxSpeed, c.MaxSpeed)
		best.MaxStillS = loosest(best.MaxStillS, c.MaxStillS)
		best.MaxTravelM = loosest(best.MaxTravelM, c.MaxTravelM)
	}
	if !found {
		return api.StopLimit{}, false, strings.Join(whys, "; ")
	}
	best.Direction = ""
	best.Source = fmt.Sprintf("direction %s not tested: the loosest of %s's tested directions (%s) in %s", dirOrAny(dir), kind, strings.Join(dirs, ", "), l.Source)
	return best, true, ""
}

// loosest of two limits, 0 being none (none is loosest).
func loosest(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	return math.Max(a, b)
}

func dirOrAny(d string) string {
	if d == "" {
		return "(none)"
	}
	return d
}

func (l *Limits) inBands(kind, dir string, bs []band, speed float64) (api.StopLimit, bool, string) {
	lo := 0.0
	for _, b := range bs {
		if speed <= b.speed+1e-9 {
			lim := api.StopLimit{Kind: kind, MinSpeed: lo, MaxSpeed: b.speed, Direction: dir, Source: b.source}
			if math.IsInf(b.speed, 1) {
				lim.MaxSpeed = math.MaxFloat64
			}
			lim.MaxStillS = b.still
			lim.MaxTravelM = b.travel
			if b.evidence {
				lim.MaxStillS = grow(b.still, b.resS, l.Margin)
				lim.MaxTravelM = grow(b.travel, b.resM, l.Margin)
				lim.Source += fmt.Sprintf(", grown by %s%s", fmtPct(l.Margin), resText(b.resS))
			}
			return lim, true, ""
		}
		lo = b.speed
	}
	what := kind
	if dir != "" {
		what += " " + dir
	}
	return api.StopLimit{}, false, fmt.Sprintf("no %s limit at %s m/s: above the tested speeds (up to %s m/s)", what, fmtF(speed), fmtF(bs[len(bs)-1].speed))
}

// grow is an evidence bound's limit: max(bound * (1 + margin), bound + res); 0 stays 0 (no limit).
func grow(bound, res, margin float64) float64 {
	if bound == 0 {
		return 0
	}
	return math.Max(bound*(1+margin), bound+res)
}

func resText(res float64) string {
	if res <= 0 {
		return ""
	}
	return fmt.Sprintf(" and at least the resolution %s s", fmtF(res))
}

func fmtPct(x float64) string { return strconv.FormatFloat(x*100, 'f', -1, 64) + " %" }

func fmtF(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// LoadLimits reads a limits file: the JSON summary of stopproof report --campaign --json, or the JSON of
// stopproof envelope --json. A file from another host or driver configuration, or without a kind want
// requires, is refused with the difference named.
func LoadLimits(path string, want Identity) (*Limits, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("stop limits: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLimitsFile+1))
	if err != nil {
		return nil, fmt.Errorf("stop limits: %w", err)
	}
	if len(b) > maxLimitsFile {
		return nil, fmt.Errorf("stop limits %s: larger than %d MiB: not a limits file", path, maxLimitsFile>>20)
	}
	return ParseLimits(filepath.Base(path), b, want)
}

// ParseLimits is LoadLimits on the file's bytes; name is what errors and sources call it.
func ParseLimits(name string, b []byte, want Identity) (*Limits, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("stop limits %s: not JSON: %w", name, err)
	}
	var l *Limits
	var err error
	switch head.Kind {
	case summaryKind:
		l, err = parseSummary(name, b, want)
	case envelopeKind:
		l, err = parseEnvelope(name, b, want)
	default:
		return nil, fmt.Errorf("stop limits %s: kind %q: want a campaign summary (%q, stopproof report --campaign --json) or an envelope (%q, stopproof envelope --json)", name, head.Kind, summaryKind, envelopeKind)
	}
	if err != nil {
		return nil, err
	}
	if want.Host == "" {
		l.Notes = append(l.Notes, "the host was not checked (no host given)")
	}
	if want.ConfigSHA256 == "" && want.ReportedConfigSHA256 == "" {
		l.Notes = append(l.Notes, "the driver configuration was not checked (no config hash given)")
	}
	if err := l.require(name, want.Require); err != nil {
		return nil, err
	}
	return l, nil
}

// require refuses limits without a required kind.
func (l *Limits) require(name string, kinds []string) error {
	var missing []string
	for _, k := range kinds {
		if !slices.Contains(l.Kinds(), k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("stop limits %s: no limits for %s, which the configuration requires (the file has %s): run a campaign over those paths or drop them from the requirement", name, strings.Join(missing, ", "), orNone(strings.Join(l.Kinds(), ", ")))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// num reads proofs/campaign.Num: a number, null (NaN) or "inf" / "-inf".
type num float64

func (x *num) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"inf"`:
		*x = num(math.Inf(1))
		return nil
	case `"-inf"`:
		*x = num(math.Inf(-1))
		return nil
	case "null":
		*x = num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*x = num(f)
	return nil
}

// The parts of proofs/campaign.Summary this package reads (its JSON names).
type (
	summaryDist struct {
		Values     int `json:"values"`
		Missing    int `json:"missing"`
		Max        num `json:"max"`
		Bound      num `json:"bound"`
		Resolution num `json:"resolution"`
	}
	summaryCell struct {
		ID   string `json:"id"`
		Cell struct {
			Path      string  `json:"path"`
			Speed     float64 `json:"speed"`
			Direction string  `json:"direction"`
		} `json:"cell"`
		N         int          `json:"n"`
		Still     summaryDist  `json:"still"`
		Travel    *summaryDist `json:"travel"`
		BoundK    int          `json:"bound_k"`
		BoundP    float64      `json:"bound_p"`
		BoundConf float64      `json:"bound_confidence"`
		Verdict   string       `json:"verdict"`
		Reasons   []string     `json:"reasons"`
	}
	summary struct {
		Kind       string        `json:"kind"`
		Version    int           `json:"version"`
		Name       string        `json:"name"`
		Proof      string        `json:"proof"`
		Verdict    string        `json:"verdict"`
		Cells      []summaryCell `json:"cells"`
		Conditions struct {
			Hosts   []string `json:"hosts"`
			Configs []string `json:"configs"`
		} `json:"conditions"`
	}
)

// countSuffix is ConditionsSummary's " (n records)".
var countSuffix = regexp.MustCompile(` \(\d+ records?\)$`)

func stripCount(s string) string { return countSuffix.ReplaceAllString(s, "") }

// kindOf maps a proof path to the stop kind it times ("" for paths that are no driver stop: the service
// stop, the hold paths).
func kindOf(path string) string {
	switch path {
	case api.StopDeadman, api.StopEStop, api.StopDisable, api.StopTakeOver, api.StopGamepad, api.StopContact, api.StopKill, api.StopScanGate:
		return path
	case "scanloss":
		return api.StopScanGate
	}
	return ""
}

// dirOf maps a campaign direction to StopRecord.Direction.
func dirOf(d string) string {
	switch d {
	case "", "forward", "fwd":
		return "fwd"
	}
	return d
}

func parseSummary(name string, b []byte, want Identity) (*Limits, error) {
	var s summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("stop limits %s: not a campaign summary: %w", name, err)
	}
	if s.Version > summaryVersion {
		return nil, fmt.Errorf("stop limits %s: summary version %d is newer than this driver's %d", name, s.Version, summaryVersion)
	}
	if err := checkIdentity(name, s.Name, s.Conditions.Hosts, s.Conditions.Configs, want); err != nil {
		return nil, err
	}
	l := &Limits{Source: fmt.Sprintf("campaign %s (%s)", s.Name, name), Margin: DefaultMargin, bands: map[bandKey][]band{}}
	for _, c := range s.Cells {
		kind := kindOf(c.Cell.Path)
		switch {
		case kind == "":
			l.Notes = append(l.Notes, fmt.Sprintf("cell %s: path %s is no driver stop kind: left out", c.ID, c.Cell.Path))
			continue
		case c.Cell.Direction == "turn":
			l.Notes = append(l.Notes, fmt.Sprintf("cell %s: a turn (rad/s): linear limits do not apply, left out", c.ID))
			continue
		case c.Verdict != "PASS":
			l.Notes = append(l.Notes, fmt.Sprintf("cell %s: verdict %s (%s): a failing cell's bound is no limit, left out", c.ID, c.Verdict, strings.Join(c.Reasons, "; ")))
			continue
		case !(c.Cell.Speed > 0) || math.IsInf(c.Cell.Speed, 0):
			l.Notes = append(l.Notes, fmt.Sprintf("cell %s: speed %v: left out", c.ID, c.Cell.Speed))
			continue
		}
		still, how, err := boundOf(c, c.Still)
		if err != nil {
			return nil, fmt.Errorf("stop limits %s: cell %s: time to still: %w", name, c.ID, err)
		}
		bd := band{speed: c.Cell.Speed, still: still, resS: finite(float64(c.Still.Resolution)), evidence: true}
		if c.Travel != nil && c.Travel.Values > 0 {
			travel, _, err := boundOf(c, *c.Travel)
			if err != nil {
				return nil, fmt.Errorf("stop limits %s: cell %s: travel: %w", name, c.ID, err)
			}
			bd.travel, bd.resM = travel, finite(float64(c.Travel.Resolution))
		}
		bd.source = fmt.Sprintf("campaign %s (%s), cell %s/%s/%s, %s", s.Name, name, kind, dirOf(c.Cell.Direction), fmtF(c.Cell.Speed), how)
		if err := l.add(kind, dirOf(c.Cell.Direction), bd); err != nil {
			return nil, fmt.Errorf("stop limits %s: %w", name, err)
		}
	}
	if len(l.bands) == 0 {
		return nil, fmt.Errorf("stop limits %s: campaign %s has no passing cell of a driver stop kind: no limits in it", name, s.Name)
	}
	return l, nil
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
		return 0
	}
	return x
}

// boundOf is a cell's bound of one quantity, or its worst value when no order statistic reached the plan's C.
func boundOf(c summaryCell, d summaryDist) (float64, string, error) {
	v, how := float64(d.Bound), fmt.Sprintf("bound at R %s C %s", fmtF(c.BoundP), fmtF(math.Round(c.BoundConf*1000)/1000))
	if c.BoundK == 0 || math.IsNaN(v) {
		v, how = float64(d.Max), fmt.Sprintf("the worst of %d runs (no order statistic reaches the plan's confidence)", c.N)
	}
	if d.Missing > 0 {
		return 0, "", fmt.Errorf("%d runs without a value: no finite bound", d.Missing)
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("bound %v: not a positive finite number", v)
	}
	return v, how, nil
}

func (l *Limits) add(kind, dir string, b band) error {
	k := bandKey{kind, dir}
	for i, o := range l.bands[k] {
		if math.Abs(o.speed-b.speed) < 1e-9 {
			// The same tested speed twice (pooled campaigns): the looser one, conservatively for trust.
			o.still, o.travel = math.Max(o.still, b.still), math.Max(o.travel, b.travel)
			o.resS, o.resM = math.Max(o.resS, b.resS), math.Max(o.resM, b.resM)
			o.source += "; " + b.source
			l.bands[k][i] = o
			return nil
		}
	}
	l.bands[k] = append(l.bands[k], b)
	sort.Slice(l.bands[k], func(i, j int) bool { return l.bands[k][i].speed < l.bands[k][j].speed })
	return nil
}

// checkIdentity refuses runs from another host or configuration, naming both values.
func checkIdentity(name, campaign string, hosts, configs []string, want Identity) error {
	var diffs []string
	if want.Host != "" {
		var other []string
		for _, h := range hosts {
			if stripCount(h) != want.Host {
				other = append(other, h)
			}
		}
		if len(hosts) == 0 {
			other = []string{"(none recorded)"}
		}
		if len(other) > 0 {
			diffs = append(diffs, fmt.Sprintf("its runs were made on host %s, this driver runs on host %s", strings.Join(other, ", "), want.Host))
		}
	}
	if want.ConfigSHA256 != "" || want.ReportedConfigSHA256 != "" {
		var other []string
		for _, c := range configs {
			v := stripCount(c)
			if !(want.ConfigSHA256 != "" && v == want.ConfigSHA256) && !(want.ReportedConfigSHA256 != "" && v == "reported:"+want.ReportedConfigSHA256) {
				other = append(other, c)
			}
		}
		if len(configs) == 0 {
			other = []string{"(none recorded)"}
		}
		if len(other) > 0 {
			var mine []string
			if want.ConfigSHA256 != "" {
				mine = append(mine, want.ConfigSHA256)
			}
			if want.ReportedConfigSHA256 != "" {
				mine = append(mine, "reported:"+want.ReportedConfigSHA256)
			}
			diffs = append(diffs, fmt.Sprintf("its runs used driver config %s, this driver's is %s", strings.Join(other, ", "), strings.Join(mine, " or ")))
		}
	}
	if len(diffs) > 0 {
		return &IdentityError{File: name, Campaign: campaign, Diffs: diffs}
	}
	return nil
}

// IdentityError is a limits file refused because its runs come from another robot or configuration: the
// caller keeps its limits as they were and tells a person to run a campaign on this robot.
type IdentityError struct {
	File, Campaign string
	Diffs          []string
}

func (e *IdentityError) Error() string {
	return fmt.Sprintf("stop limits %s refused: campaign %s is not this robot's evidence: %s; run a campaign on this robot with this configuration (stopproof campaign), or give its limits in the configuration", e.File, e.Campaign, strings.Join(e.Diffs, "; "))
}

// The parts of stopproof envelope --json this package reads (proofs/envelope's jsonReport).
type (
	envSpeed struct {
		V             num `json:"speed_m_s"`
		BoundDistance num `json:"bound_distance_m"`
		BoundTime     num `json:"bound_time_s"`
		Cell          struct {
			ID        string `json:"id"`
			Campaign  string `json:"campaign"`
			BoundText string `json:"bound_text"`
		} `json:"cell"`
	}
	envGroup struct {
		Path      string     `json:"path"`
		Direction string     `json:"direction"`
		Speeds    []envSpeed `json:"speeds"`
	}
	envReport struct {
		Sources []struct {
			Name    string  `json:"name"`
			R       float64 `json:"r"`
			C       float64 `json:"c"`
			Verdict string  `json:"verdict"`
		} `json:"sources"`
		Groups []envGroup `json:"envelopes"`
	}
)

// errUnidentified: an envelope cannot show which robot its runs come from.
var errUnidentified = errors.New("an envelope does not record its runs' host or driver config hash, so it cannot be shown to come from this robot")

func parseEnvelope(name string, b []byte, want Identity) (*Limits, error) {
	var e envReport
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("stop limits %s: not an envelope: %w", name, err)
	}
	var camps []string
	for _, s := range e.Sources {
		camps = append(camps, s.Name)
	}
	if (want.Host != "" || want.ConfigSHA256 != "" || want.ReportedConfigSHA256 != "") && !want.AcceptUnidentified {
		return nil, fmt.Errorf("stop limits %s refused: %w (this driver: host %s, config %s); give the campaign's summary (stopproof report --campaign --json) instead", name, errUnidentified, orNone(want.Host), orNone(want.ConfigSHA256+want.ReportedConfigSHA256))
	}
	l := &Limits{Source: fmt.Sprintf("envelope of %s (%s)", strings.Join(camps, ", "), name), Margin: DefaultMargin, bands: map[bandKey][]band{}}
	l.Notes = append(l.Notes, "an envelope does not record its runs' host or driver config: accepted unidentified")
	for _, g := range e.Groups {
		kind := kindOf(g.Path)
		if kind == "" || g.Direction == "turn" {
			l.Notes = append(l.Notes, fmt.Sprintf("envelope %s %s: no linear driver stop kind: left out", g.Path, g.Direction))
			continue
		}
		for _, s := range g.Speeds {
			v, t, d := float64(s.V), float64(s.BoundTime), float64(s.BoundDistance)
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("stop limits %s: envelope %s %s: speed %v: not a positive finite speed", name, g.Path, g.Direction, v)
			}
			if !(t > 0) || math.IsInf(t, 0) {
				return nil, fmt.Errorf("stop limits %s: envelope %s %s at %s m/s: bounded time %v: not a positive finite time", name, g.Path, g.Direction, fmtF(v), t)
			}
			if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
				d = 0
			}
			bd := band{speed: v, still: t, travel: d, evidence: true,
				source: fmt.Sprintf("envelope %s (%s), %s/%s/%s (cell %s of %s: %s)", strings.Join(camps, ", "), name, kind, dirOf(g.Direction), fmtF(v), s.Cell.ID, s.Cell.Campaign, s.Cell.BoundText)}
			if err := l.add(kind, dirOf(g.Direction), bd); err != nil {
				return nil, fmt.Errorf("stop limits %s: %w", name, err)
			}
		}
	}
	if len(l.bands) == 0 {
		return nil, fmt.Errorf("stop limits %s: the envelope has no path of a driver stop kind: no limits in it", name)
	}
	return l, nil
}
