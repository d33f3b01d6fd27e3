//go:build !rosorin_breakrule

package breakrule

// On reports whether rule name is broken in this binary: never, in a normal build.
func On(name string) bool { return false }

// Tagged is false in a normal build.
const Tagged = false

// Active lists the broken rules: none, in a normal build.
func Active() []string { return nil }
