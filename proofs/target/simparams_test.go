package target

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/internal/simrobot"
)

// The overrides file is what the driver reads after the sim's own: loaded the same way (config.Load of both,
// as rosorin-base run --config twice does), it changes the keys given and nothing else.
func TestSimParamsYAML(t *testing.T) {
	b, err := SimParamsYAML([]string{"priority_manual=5", " source_timeout = 0.25 "})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base, over := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "over.yaml")
	os.WriteFile(base, []byte(simrobot.RobotConfig), 0o644)
	os.WriteFile(over, b, 0o644)
	plain, _, err := config.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	c, notes, err := config.Load(base, over)
	if err != nil || len(notes) != 0 {
		t.Fatalf("%v %v\n%s", err, notes, b)
	}
	if c.PriorityManual != 5 || c.SourceTimeout != 0.25 {
		t.Errorf("priority_manual %d, source_timeout %v\n%s", c.PriorityManual, c.SourceTimeout, b)
	}
	c.PriorityManual, c.SourceTimeout = plain.PriorityManual, plain.SourceTimeout
	if c != plain {
		t.Errorf("other keys changed:\n%+v\n%+v", c, plain)
	}
	if b, err := SimParamsYAML(nil); b != nil || err != nil {
		t.Errorf("no overrides: %q %v", b, err)
	}
	// A value cannot smuggle YAML structure in: it is one scalar or refused.
	for _, bad := range []string{"max_linear=1\nmax_angular: 9", "device={a: 1}", "=5", "max_linear=", "scan_timeout=-1", "cmd_timeout=nan"} {
		if _, err := SimParamsYAML([]string{bad}); !errors.Is(err, ErrSimParam) {
			t.Errorf("%q: %v, want an ErrSimParam", bad, err)
		}
	}
	if _, err := SimParamsYAML([]string{"device=/dev/x y"}); err != nil && !strings.Contains(err.Error(), "device") {
		t.Errorf("a string value: %v", err)
	}
}
