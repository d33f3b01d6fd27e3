package stand

import (
	"strings"
	"testing"

	"github.com/rosorin/rosorin/judge/vibration"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

// The contact path on the fake stand (the driver's own decision, judge/contact): the reflex trips by
// itself and the wheels stop; the other paths ran in log mode and said so.
func TestContactPathPasses(t *testing.T) {
	run(t, targettest.Options{Seed: 31}, "estop,contact", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil {
			t.Fatal(err)
		}
		if !rep.AllPassed() {
			t.Fatalf("%s\n%s", rep.ResultLine(), out)
		}
		for _, want := range []string{"contact reflex: log mode for the drive paths",
			`contact reflex: e-stop "contact: commanded 0.20 m/s, measured 0.00 m/s for 0.3 s" 1.`, "contact reflex, fwd 0.2"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		last := rep.Results[len(rep.Results)-1]
		if last.Path != Contact || last.Outcome != vibration.Pass || !strings.Contains(last.TriggerHow, "contact reflex") {
			t.Errorf("contact: %+v", last)
		}
		for _, res := range rep.Results[:len(rep.Results)-1] {
			if !strings.Contains(strings.Join(res.Notes, ";"), "contact reflex in log mode during this path") {
				t.Errorf("%s: notes %q", res.Name, res.Notes)
			}
		}
	})
}

// The negative control: with the reflex off the wheels keep turning, and the path FAILs.
func TestContactPathFailsWithTheReflexOff(t *testing.T) {
	for _, mode := range []string{"off", "log"} {
		t.Run(mode, func(t *testing.T) {
			run(t, targettest.Options{Seed: 32, Contact: mode}, "contact", nil, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
				if err != nil {
					t.Fatal(err)
				}
				if rep.Passed != 0 || len(rep.Results) != 1 || rep.Results[0].Outcome != vibration.Fail ||
					!strings.Contains(rep.Results[0].Reason, "the wheels kept turning") {
					t.Fatalf("reflex %s: %+v\n%s", mode, rep.Results, out)
				}
			})
		})
	}
}
