//go:build rosorin_breakrule

package breakrule

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	got := parse(" keep-ramp, nonsense ,board-resume,")
	if want := []string{KeepRamp, BoardResume}; !slices.Equal(got, want) {
		t.Errorf("parse = %v, want %v", got, want)
	}
	if parse("") != nil {
		t.Error("parse of nothing broke a rule")
	}
}
