package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/soak"
)

// soakLimits are generous stated limits for every kind the soak counts: time to still under the proofs' 0.8 s
// rule (the deadman's includes its 0.3 s timeout), travel under the floor campaigns' requirements. A flag
// with them is a false flag.
const soakLimits = `estop: {max_still_s: 0.8, max_travel_m: 0.15}
deadman: {max_still_s: 1.2, max_travel_m: 0.25}
disable: {max_still_s: 0.8, max_travel_m: 0.15}
gamepad: {max_still_s: 0.8, max_travel_m: 0.15}
takeover: {max_still_s: 0.8, max_travel_m: 0.15}
`

func limitsFile(t *testing.T, yaml string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "limits.yaml")
	if err := os.WriteFile(f, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSoakSim is issue 35's soak in CI, short: stops of every kind the soak makes on the floor world, the
// service's supervisor SIGKILLed every second stop; every stop must have its record in the driver's stop log
// and none may be flagged.
func TestSoakSim(t *testing.T) {
	testkit.SkipShort(t, "a 35 s soak of the driver's stop monitor on the simulated floor robot")
	js := filepath.Join(t.TempDir(), "soak.json")
	out, code := stopproof(t, 3*time.Minute, "soak", "--sim", "--duration", "35s", "--kill-service-every", "2",
		"--limits", limitsFile(t, soakLimits), "--json", js, "--evidence-dir", t.TempDir())
	if code != 0 || !strings.Contains(out, "SOAK PASSED: every stop recorded, no flag") {
		t.Fatalf("soak: exit %d, want 0 and SOAK PASSED\n%s", code, out)
	}
	var res soak.Result
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	made, counted := 0, 0
	for _, s := range res.Stops {
		if s.Err == "" {
			made++
		}
		if s.Record != nil && s.Record.Confidence == "ok" && s.Record.Limit != nil {
			counted++
		}
	}
	if made < 4 || res.ServiceKills < 1 || counted < 2 {
		t.Errorf("soak: %d stops made, %d held against a limit, %d supervisor SIGKILLs: want at least 4, 2 and 1", made, counted, res.ServiceKills)
	}
}

// TestSoakWearSim: brakes that wear 10 % a stop make the e-stop at 0.3 m/s pass a 0.05 m travel limit at the
// third stop (sim.WearCrossing); the monitor must flag it within three stops, never before, hold enable in
// hold mode until the acknowledgement, and accept it after. The negative control: the same with the monitor
// off must FAIL (never flagged).
func TestSoakWearSim(t *testing.T) {
	testkit.SkipShort(t, "a 35 s and a 30 s soak with wearing brakes on the simulated floor robot")
	args := func(mode, d string) []string {
		return []string{"soak", "--sim", "--duration", d, "--kinds", "estop", "--speeds", "0.3", "--directions", "fwd",
			"--sim-fault", "wear-brake=10%/stop@start", "--expect-flag", "--flag-within", "3",
			"--limits", limitsFile(t, "estop: {max_travel_m: 0.05}\n"), "--sim-param", "stop_monitor.mode=" + mode,
			"--evidence-dir", t.TempDir()}
	}
	out, code := stopproof(t, 3*time.Minute, args("hold", "45s")...)
	for _, want := range []string{"the monitor held enable", "acknowledged with the safety role: enable refused before, accepted after",
		"SOAK PASSED: the wear was flagged in time"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("wearing brakes: exit %d, want 0 and %q\n%s", code, want, out)
		}
	}
	out, code = stopproof(t, 3*time.Minute, args("off", "30s")...)
	if code != 1 || !strings.Contains(out, "the monitor never flagged") {
		t.Fatalf("wearing brakes, monitor off: exit %d, want 1 and the monitor never flagging\n%s", code, out)
	}
}
