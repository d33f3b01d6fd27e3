package stand

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/judge/vibration"
)

// A path that failed before its trigger (the driver replaced during spin-up, seen in a sim run) has no trigger
// time; its record must still be written, with null where nothing was measured.
func TestResultJSONWithoutTrigger(t *testing.T) {
	v := vibration.TimedOut(math.NaN(), math.NaN(), vibration.DefaultParams(), "driver replaced while spinning up")
	v.Outcome = vibration.Fail
	r := Result{Path: Deadman, Name: "deadman (silence), fwd 0.2", TriggerS: math.NaN(), StopS: math.NaN(),
		Outcome: v.Outcome, Reason: v.Reason, Measurements: measurements(v), Verdict: v}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("marshal a result without a trigger: %v", err)
	}
	for _, want := range []string{`"trigger_s":null`, `"stop_s":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("record lacks %s: %s", want, b)
		}
	}
	if strings.Count(string(b), `"trigger_s"`) != 1 {
		t.Errorf("trigger_s written more than once: %s", b)
	}
}
