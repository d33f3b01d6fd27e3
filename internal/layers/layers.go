package layers

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Module is this repository's module path.
const Module = "github.com/rosorin/rosorin"

// Package is one row of the import table: a package and its non-test imports, as `go list -deps -json`
// reports them.
type Package struct {
	ImportPath string
	Standard   bool // in the standard library
	Imports    []string
}

// Edge is one import: From imports To.
type Edge struct{ From, To string }

func (e Edge) String() string { return trim(e.From) + " -> " + trim(e.To) }

// Exceptions are the arrows that run the wrong way today, each to be removed by the change that removes the
// import. Check asserts them exactly: a new one fails, and so does one whose import is gone (delete it here).
var Exceptions = []Edge{
	// driver/standtest is a test kit (the stand harness as a conformance suite) that lives beside the driver
	// it tests; no command links it (the cmd rule below checks that).
	{Module + "/driver/standtest", Module + "/internal/testkit"},
}

// The judges may use only these, besides one another (judge/...) and the standard library.
var judgeMayUse = []string{
	"gonum.org/v1/gonum",
	Module + "/protocol",
	Module + "/kinematics",
	Module + "/scanmatch",
	Module + "/judge",
}

// Nor may a judge import these parts of the standard library itself: files, the network, processes,
// goroutine plumbing (they come in below fmt and json, so only the judge's own imports are checked). time is
// allowed for its values (Duration, Time); that a judge reads no clock is not an import question.
var judgeMayNotImportStd = []string{
	"os", "net", "syscall", "io/fs", "io/ioutil", "path/filepath", "log", "sync", "context", "unsafe", "runtime",
}

// The driver may reach none of these, directly or through other packages.
var driverMayNotUse = []string{
	Module + "/proofs",
	Module + "/sim",
	Module + "/ros2",
	Module + "/internal/testkit",
	Module + "/internal/stacktest",
	Module + "/driver/standtest", // a test kit, though under driver/
}

// No command (shipped binary) may reach a test kit.
var cmdMayNotUse = []string{
	Module + "/internal/testkit",
	Module + "/internal/stacktest",
	Module + "/driver/standtest",
}

// under reports whether path is prefix or a package below it.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

func underAny(path string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return under(path, p) })
}

func trim(p string) string {
	if p == Module {
		return "."
	}
	return strings.TrimPrefix(p, Module+"/")
}

// Check returns the layering violations in the table, one sentence each, sorted; none when the layers hold.
// Reachability follows the non-test imports of every package in the table, except the exception edges.
//
//   - A judge (judge/...) may reach only the standard library, gonum, protocol/..., kinematics, scanmatch
//     and other judges, and may not import the standard library's I/O and concurrency packages itself
//     (judgeMayNotImportStd).
//   - A driver package (driver/...) may not reach proofs/..., sim/..., ros2/..., internal/testkit,
//     internal/stacktest or driver/standtest.
//   - A command (cmd/...) may not reach internal/testkit, internal/stacktest or driver/standtest.
//   - Every exception must be a direct import in the table (else it is stale and must be deleted).
func Check(table []Package, exceptions []Edge) []string {
	byPath := make(map[string]*Package, len(table))
	for i := range table {
		byPath[table[i].ImportPath] = &table[i]
	}
	skip := make(map[Edge]bool, len(exceptions))
	for _, e := range exceptions {
		skip[e] = true
	}
	var out []string
	for _, e := range exceptions {
		p := byPath[e.From]
		if p == nil || !slices.Contains(p.Imports, e.To) {
			out = append(out, fmt.Sprintf("exception %s: no such import any more; delete it from layers.Exceptions", e))
		}
	}
	for _, p := range table {
		path := p.ImportPath
		switch {
		case under(path, Module+"/judge"):
			out = append(out, reach(byPath, skip, path, "judge", func(q *Package) bool {
				return !q.Standard && !underAny(q.ImportPath, judgeMayUse)
			})...)
			for _, imp := range p.Imports {
				if underAny(imp, judgeMayNotImportStd) {
					out = append(out, fmt.Sprintf("judge %s may not import %s (I/O or concurrency; the judges are pure)", trim(path), imp))
				}
			}
		case under(path, Module+"/driver"):
			out = append(out, reach(byPath, skip, path, "driver package", func(q *Package) bool {
				return underAny(q.ImportPath, driverMayNotUse)
			})...)
		case under(path, Module+"/cmd"):
			out = append(out, reach(byPath, skip, path, "command", func(q *Package) bool {
				return underAny(q.ImportPath, cmdMayNotUse)
			})...)
		}
	}
	sort.Strings(out)
	return out
}

// reach walks the imports from root (breadth first, skipping the exception edges) and reports every package
// bad says may not be reached, with the chain of imports that reaches it. A reached package is not walked
// further: its own imports are its layer's business.
func reach(byPath map[string]*Package, skip map[Edge]bool, root, what string, bad func(*Package) bool) []string {
	via := map[string]string{root: ""}
	queue := []string{root}
	var out []string
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		p := byPath[from]
		if p == nil {
			continue
		}
		for _, to := range p.Imports {
			if _, seen := via[to]; seen || skip[Edge{from, to}] {
				continue
			}
			via[to] = from
			q := byPath[to]
			if q == nil { // not in the table: judged by its path alone
				q = &Package{ImportPath: to, Standard: !strings.Contains(strings.Split(to, "/")[0], ".")}
			}
			if bad(q) {
				chain := []string{trim(to)}
				for at := from; at != ""; at = via[at] {
					chain = append(chain, trim(at))
				}
				slices.Reverse(chain)
				out = append(out, fmt.Sprintf("%s %s may not use %s (%s)", what, trim(root), trim(to), strings.Join(chain, " -> ")))
				continue
			}
			queue = append(queue, to)
		}
	}
	return out
}
