package scangate

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

func check(t *testing.T, fopt targettest.Options) (*Report, error, string, *targettest.Fake) {
	t.Helper()
	var rep *Report
	var err error
	var out bytes.Buffer
	var f *targettest.Fake
	synctest.Test(t, func(t *testing.T) {
		f = targettest.NewFake(clock.Real{}, fopt)
		o := DefaultOptions()
		o.Out = &out
		o.Alive = func(int) bool { return true } // the fake's pids are not processes
		rep, err = Run(context.Background(), f, o)
	})
	return rep, err, out.String(), f
}

func TestScanGatePassesWhenTheReaderRespawns(t *testing.T) {
	rep, err, out, _ := check(t, targettest.Options{Seed: 1})
	if err != nil || !rep.Passed() {
		t.Fatalf("%v\n%s", err, out)
	}
	r := rep.Result
	if *r.WorstScanAge < 2 || *r.ScansBackAfter < 2 || *r.ScansBackAfter > 3 || len(r.ReaderPIDsNow) != 1 || r.ReaderPIDsNow[0] == r.KilledPIDs[0] {
		t.Errorf("result %s", r.JSONLine())
	}
	if !strings.HasSuffix(strings.TrimSpace(out), "PASS") || !strings.Contains(out, `"state_blocked":"disabled"`) {
		t.Errorf("output:\n%s", out)
	}
}

// The negative control: with the reader's respawn switched off the check must FAIL.
func TestScanGateFailsWithoutRespawn(t *testing.T) {
	rep, err, out, _ := check(t, targettest.Options{Seed: 2, NoRespawn: true})
	if err != nil || rep.Passed() || !strings.Contains(out, "FAIL") {
		t.Fatalf("%v passed=%v\n%s", err, rep.Passed(), out)
	}
	if !strings.Contains(rep.Result.Reason, "did not come back") {
		t.Errorf("reason %q", rep.Result.Reason)
	}
}

func TestScanGateRefusesEnabledWheels(t *testing.T) {
	rep, err, out, f := check(t, targettest.Options{Seed: 3, StartEnabled: true})
	if !errors.Is(err, ErrAborted) || !strings.Contains(rep.Aborted, "enabled") {
		t.Fatalf("%v %q\n%s", err, rep.Aborted, out)
	}
	for _, c := range f.Calls() {
		if c == "kill-reader" {
			t.Error("the reader was killed with the wheels enabled")
		}
	}
	if _, err, _, _ := check(t, targettest.Options{NoDriver: true}); !errors.Is(err, ErrAborted) {
		t.Errorf("no driver: %v", err)
	}
}
