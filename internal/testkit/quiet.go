package testkit

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// QuietElsewhereEnv names the tests that CI runs in its quiet step, with nothing else on the machine
// (space-separated top-level test names). CI sets it for its real-time lanes, which run beside each other.
const QuietElsewhereEnv = "ROSORIN_QUIET_ELSEWHERE"

// NeedsQuietMachine is for a test that measures the machine (CPU, memory, a latency's tail over many runs):
// run beside other real-time tests, it would measure them too. Unless QuietElsewhereEnv is set it does
// nothing. When it is set, a test it lists is skipped (CI runs it alone) and a test it does not list fails,
// since CI would then never run it.
func NeedsQuietMachine(t testing.TB) {
	t.Helper()
	skip, err := quietElsewhere(t.Name(), os.Getenv(QuietElsewhereEnv))
	if err != nil {
		t.Fatal(err)
	}
	if skip {
		t.Skipf("needs a quiet machine: CI runs it alone (%s)", QuietElsewhereEnv)
	}
}

// quietElsewhere decides NeedsQuietMachine for the test named name and the list of QuietElsewhereEnv.
func quietElsewhere(name, list string) (skip bool, err error) {
	if strings.TrimSpace(list) == "" {
		return false, nil
	}
	top, _, _ := strings.Cut(name, "/")
	if slices.Contains(strings.Fields(list), top) {
		return true, nil
	}
	return false, fmt.Errorf("%s needs a quiet machine but %s does not list it: add it to .ci/run's quiet list, or CI never runs it alone", top, QuietElsewhereEnv)
}
