//go:build rosorin_breakrule

package breakrule

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

var active = parse(os.Getenv(Env))

func parse(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(Names, f) {
			fmt.Fprintf(os.Stderr, "%s: unknown rule %q (known: %s); ignored\n", Env, f, strings.Join(Names, ", "))
			continue
		}
		out = append(out, f)
	}
	if len(out) > 0 {
		fmt.Fprintf(os.Stderr, "TEST BUILD (%s): safety rules broken on purpose: %s; never run this binary on a robot\n",
			Tag, strings.Join(out, ", "))
	}
	return out
}

// On reports whether rule name is broken in this binary (named in ROSORIN_BREAK_RULE).
func On(name string) bool { return slices.Contains(active, name) }

// Tagged is true in a rosorin_breakrule build.
const Tagged = true

// Active lists the broken rules.
func Active() []string { return slices.Clone(active) }
