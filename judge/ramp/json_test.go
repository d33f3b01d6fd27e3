package ramp

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestVerdictJSONWithNaN: no acceleration measured (NaN peak) still encodes, with null there.
func TestVerdictJSONWithNaN(t *testing.T) {
	v := Verdict{AccelPeak: math.NaN(), AccelLim: 1.3, Peak: 0.2}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"AccelPeak":null`, `"AccelLim":1.3`, `"Peak":0.2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
