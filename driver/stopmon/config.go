package stopmon

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rosorin/rosorin/driver/api"
)

// ConfigLimits are stop limits a person states in the driver's configuration (for the driver's config
// package to embed), per stop kind:
//
//	stop_limits:
//	  estop: {max_still_s: 0.6, max_travel_m: 0.08}
//	  deadman:
//	    max_still_s: 1.0            # at any speed not in a band
//	    bands:
//	      - {up_to: 0.2, max_still_s: 0.8, max_travel_m: 0.10}
//	      - {up_to: 0.35, max_still_s: 0.9, max_travel_m: 0.16}
//
// A band covers the speeds above the previous band's up_to up to its own. Without bands, or above the
// last band, the kind's own max_still_s / max_travel_m hold (none when both are 0). Configured limits are
// taken as stated: no margin, no direction (they hold for every direction).
type ConfigLimits map[string]ConfigKind

// ConfigKind is one kind's configured limits.
type ConfigKind struct {
	MaxStillS  float64      `yaml:"max_still_s,omitempty" json:"max_still_s,omitempty"`
	MaxTravelM float64      `yaml:"max_travel_m,omitempty" json:"max_travel_m,omitempty"`
	Bands      []ConfigBand `yaml:"bands,omitempty" json:"bands,omitempty"`
}

// ConfigBand is one speed band of a kind.
type ConfigBand struct {
	UpTo       float64 `yaml:"up_to" json:"up_to"` // m/s
	MaxStillS  float64 `yaml:"max_still_s,omitempty" json:"max_still_s,omitempty"`
	MaxTravelM float64 `yaml:"max_travel_m,omitempty" json:"max_travel_m,omitempty"`
}

// Kinds are the stop kinds limits may name.
var Kinds = []string{api.StopDeadman, api.StopEStop, api.StopDisable, api.StopTakeOver, api.StopScanGate, api.StopContact, api.StopGamepad, api.StopBoard, api.StopKill}

// Limits checks the configured limits and makes them Limits; require names kinds that must have one.
func (c ConfigLimits) Limits(require ...string) (*Limits, error) {
	l := &Limits{Source: "config", bands: map[bandKey][]band{}}
	names := make([]string, 0, len(c))
	for k := range c {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, kind := range names {
		ck := c[kind]
		if !known(kind) {
			return nil, fmt.Errorf("stop_limits: unknown stop kind %q (the kinds: %s)", kind, strings.Join(Kinds, ", "))
		}
		if err := checkVals(kind, "", ck.MaxStillS, ck.MaxTravelM); err != nil {
			return nil, err
		}
		prev := 0.0
		for i, b := range ck.Bands {
			at := fmt.Sprintf(" band %d (up_to %v)", i+1, b.UpTo)
			if !(b.UpTo > prev) || math.IsInf(b.UpTo, 0) {
				return nil, fmt.Errorf("stop_limits: %s%s: up_to must be a finite speed above the previous band's (%v m/s)", kind, at, prev)
			}
			if err := checkVals(kind, at, b.MaxStillS, b.MaxTravelM); err != nil {
				return nil, err
			}
			if b.MaxStillS == 0 && b.MaxTravelM == 0 {
				return nil, fmt.Errorf("stop_limits: %s%s: neither max_still_s nor max_travel_m", kind, at)
			}
			prev = b.UpTo
			l.bands[bandKey{kind, ""}] = append(l.bands[bandKey{kind, ""}], band{speed: b.UpTo, still: b.MaxStillS, travel: b.MaxTravelM,
				source: fmt.Sprintf("config (stop_limits %s, up to %s m/s)", kind, fmtF(b.UpTo))})
		}
		if ck.MaxStillS > 0 || ck.MaxTravelM > 0 {
			l.bands[bandKey{kind, ""}] = append(l.bands[bandKey{kind, ""}], band{speed: math.Inf(1), still: ck.MaxStillS, travel: ck.MaxTravelM,
				source: fmt.Sprintf("config (stop_limits %s)", kind)})
		}
	}
	if err := l.require("config", require); err != nil {
		return nil, err
	}
	return l, nil
}

func known(kind string) bool {
	for _, k := range Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func checkVals(kind, at string, still, travel float64) error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"max_still_s", still}, {"max_travel_m", travel}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x < 0 {
			return fmt.Errorf("stop_limits: %s%s: %s %v: want a positive number (0: none)", kind, at, v.name, v.x)
		}
	}
	return nil
}
