package breakrule

import "testing"

// TestOffUnlessTagged: a normal build breaks nothing, whatever the environment says. Under the tag the
// parser is tested instead (on_test.go).
func TestOffUnlessTagged(t *testing.T) {
	t.Setenv(Env, KeepRamp)
	if Tagged {
		t.Skip("built with the rosorin_breakrule tag: on_test.go covers it")
	}
	for _, n := range Names {
		if On(n) {
			t.Errorf("On(%q) = true in a normal build", n)
		}
	}
	if Active() != nil {
		t.Errorf("Active() = %v in a normal build", Active())
	}
}
