package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

// TestFaultTable: every entry is complete, its example parses to its kind, its subcommand arguments
// build the same request, and no two entries share a name.
func TestFaultTable(t *testing.T) {
	seen := map[FaultKind]bool{}
	for _, sp := range FaultSpecs {
		if seen[sp.Kind] {
			t.Errorf("%s: two entries", sp.Kind)
		}
		seen[sp.Kind] = true
		if sp.Doc == "" || !strings.HasPrefix(sp.Form, string(sp.Kind)) || (sp.parse == nil) != sp.Switch || sp.apply == nil {
			t.Errorf("%s: incomplete entry %+v", sp.Kind, sp)
		}
		if !sp.Switch && (sp.Need == "" || (len(sp.Args) == 0) != (sp.Example == string(sp.Kind)) || (len(sp.Args) > 1 && sp.Sep == "")) {
			t.Errorf("%s: a valued fault needs Need, Args and (for several) Sep; an event without a value (home) no Args", sp.Kind)
		}
		f, err := ParseFault(sp.Example)
		if err != nil || f.Kind != sp.Kind {
			t.Errorf("%s: example %q: %+v, %v", sp.Kind, sp.Example, f, err)
			continue
		}
		if !strings.Contains(FaultHelp, sp.Form) {
			t.Errorf("%s: not in FaultHelp", sp.Kind)
		}
		// The subcommand's arguments for the example give back the example.
		_, val, _ := strings.Cut(sp.Example, "=")
		var opt string
		if sp.Option != "" {
			val, opt, _ = strings.Cut(val, ":")
		}
		args := []string{val}
		switch {
		case len(sp.CLIArgs()) == 0:
			args = nil
		case sp.Sep != "":
			args = strings.Split(val, sp.Sep)
		}
		req, err := sp.Request(args, opt)
		if err != nil || req != sp.Example {
			t.Errorf("%s: Request(%q, %q) = %q, %v; want %q", sp.Kind, args, opt, req, err, sp.Example)
		}
		if _, err := sp.Request(append(args, "extra"), opt); err == nil || !strings.Contains(err.Error(), string(sp.Kind)) {
			t.Errorf("%s: an extra argument: %v", sp.Kind, err)
		}
		if got := sp.Kind.IsSwitch(); got != sp.Switch {
			t.Errorf("%s: IsSwitch %v", sp.Kind, got)
		}
	}
	if FaultKind("explode").IsSwitch() {
		t.Error("an unknown fault is a switch")
	}
}

// TestFaultDocTable: docs/sim.md carries FaultTable() verbatim, so the doc cannot drift from the table.
func TestFaultDocTable(t *testing.T) {
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "sim.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), FaultTable()) {
		t.Errorf("docs/sim.md does not contain the fault table; paste this in place of the old one:\n%s", FaultTable())
	}
}
