//go:build rosorin_breakrule

package motion

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/breakrule"
)

// TestKeepRampFailsTheHoldRules is the negative control of hold_test.go: with the gate's ramp rule broken
// (keep-ramp: cur kept over every stop, a symmetric rate limiter), the hold tests must FAIL, each naming
// the motion, except the fresh gate's (a new gate's ramp starts at zero whatever the rule; its negative
// control is TestHoldCheckerCatchesASelfEnable).
//
// Why a child process: breakrule reads ROSORIN_BREAK_RULE once, in its package initialisation, which runs
// before this package's tests (and before any TestMain), so neither os.Setenv nor t.Setenv can switch the
// rule on in this process. A test seam in gate.go (a settable variable) would make the normal build's check
// a load instead of a constant false. So this test runs its own test binary again with the variable set and
// reads the verdicts of the hold tests from its -test.v output.
func TestKeepRampFailsTheHoldRules(t *testing.T) {
	if breakrule.On(breakrule.KeepRamp) {
		t.Skip("keep-ramp is already broken in this process: this is the child run, or the caller set " + breakrule.Env)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHold", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), breakrule.Env+"="+breakrule.KeepRamp) // the last value of a key wins
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the hold tests passed with keep-ramp broken:\n%s", out)
	}
	if !strings.Contains(string(out), "safety rules broken on purpose: "+breakrule.KeepRamp) {
		t.Fatalf("the child did not run with keep-ramp broken (%v):\n%s", err, out)
	}
	verdict := map[string]string{} // top-level hold test -> PASS or FAIL
	for _, m := range regexp.MustCompile(`(?m)^--- (PASS|FAIL): (TestHold\w+)`).FindAllStringSubmatch(string(out), -1) {
		verdict[m[2]] = m[1]
	}
	for name, want := range map[string]string{
		"TestHoldEStopReset":                "FAIL",
		"TestHoldDisableEnable":             "FAIL",
		"TestHoldDeadmanThenZeroThenSmall":  "FAIL",
		"TestHoldScanGateRelease":           "FAIL",
		"TestHoldTakeOverHandBack":          "FAIL",
		"TestHoldRefusedCommand":            "FAIL",
		"TestHoldFreshGate":                 "PASS", // keep-ramp cannot break it: a new gate's cur is zero
		"TestHoldCheckerCatchesASelfEnable": "PASS", // the checker's own control, independent of the rule
	} {
		if got := verdict[name]; got != want {
			t.Errorf("%s under keep-ramp: %q, want %s", name, got, want)
		}
	}
	// The FAILs must be the rules' words, not a crash: the deadman's burst over the small command, and the
	// releases at the old speed instead of through the ramp from zero.
	for _, c := range []struct{ test, rule string }{
		{"TestHoldDeadmanThenZeroThenSmall", "the largest command since the event"},
		{"TestHoldScanGateRelease", "not the ramp from zero"},
		{"TestHoldEStopReset", "not the ramp from zero"},
		{"TestHoldRefusedCommand", "not the ramp from zero"},
	} {
		m := regexp.MustCompile(`(?m)^\s+hold_test\.go:\d+: (.*` + regexp.QuoteMeta(c.rule) + `.*)$`).FindStringSubmatch(section(string(out), c.test))
		if m == nil {
			t.Errorf("%s under keep-ramp: no %q in its output", c.test, c.rule)
			continue
		}
		t.Logf("%s under keep-ramp: %s", c.test, m[1])
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
}

// section returns the part of go test -v output from "=== RUN   name" to the next top-level test.
func section(out, name string) string {
	i := strings.Index(out, "=== RUN   "+name+"\n")
	if i < 0 {
		return ""
	}
	rest := out[i+1:]
	if j := regexp.MustCompile(`(?m)^--- (PASS|FAIL): ` + name + ` `).FindStringIndex(rest); j != nil {
		return rest[:j[1]]
	}
	return rest
}
