package heartbeat

import (
	"strings"
	"testing"
)

// TestFinalWordRoundTrip: what FinalWord writes, ParseFinalWord reads back, with the reason made safe.
func TestFinalWordRoundTrip(t *testing.T) {
	for _, c := range []struct{ latch, want, raw string }{
		{"", "", "qU\n"},
		{"gamepad button 0x0040", "gamepad button 0x0040", "qLgamepad button 0x0040\n"},
		{"estop request from pid 4: a\nb", "estop request from pid 4: a b", "qLestop request from pid 4: a b\n"},
		{strings.Repeat("y", 300), strings.Repeat("y", MaxReason), "qL" + strings.Repeat("y", MaxReason) + "\n"},
	} {
		raw := FinalWord(c.latch)
		if string(raw) != c.raw {
			t.Errorf("FinalWord(%.20q) = %.30q, want %.30q", c.latch, raw, c.raw)
		}
		got, ok := ParseFinalWord(raw)
		if !ok || got != c.want {
			t.Errorf("FinalWord(%.20q) read back as (%.20q, %v), want %.20q", c.latch, got, ok, c.want)
		}
	}
	if Tick == Stopping {
		t.Fatal("a tick would read as the final word")
	}
}

func TestParseFinalWordRefuses(t *testing.T) {
	for _, b := range []string{"", "q", "qL", "qX\n", "qL\n", "qLa\nb\n", ".U\n", "qU"} {
		if latch, ok := ParseFinalWord([]byte(b)); ok {
			t.Errorf("ParseFinalWord(%q) = (%q, true), want refused", b, latch)
		}
	}
}
