package still

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestVerdictJSONWithNaN: a verdict whose peaks were never measured (NaN) still encodes, with null there.
func TestVerdictJSONWithNaN(t *testing.T) {
	v := Verdict{Outcome: Pass, VibrationPeak: math.NaN(), SpeedPeak: math.Inf(1), From: 1, To: 3}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"VibrationPeak":null`, `"SpeedPeak":null`, `"To":3`, `"Outcome":"PASS"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
