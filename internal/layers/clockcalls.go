package layers

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The one time seam (issue 32): package clock is where the module reads the clock. Everywhere else time
// comes from an injected clock.Clock, Timers or Full (a field defaulting to clock.Real{}), so a test can run
// the code on a fake or in a testing/synctest bubble, and a reader finds every clock read in one place.

// ClockFuncs are package time's functions that read or wait on the clock. Arithmetic on time.Time and
// time.Duration values (Add, Sub, Before, Round) reads no clock and is not listed.
var ClockFuncs = []string{"Now", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick", "Since", "Until"}

// ClockAllow is a package (or, ending in "/...", a package and everything below it) that still reads package
// time's clock directly, and why.
type ClockAllow struct{ Pkg, Why string }

// ClockAllowed are the packages not yet on the seam, each to be removed by the change that moves it there.
// CheckClock asserts them exactly: a direct call anywhere else fails, and so does an entry with none left.
// The pure layers (pureLayers) can never be listed.
var ClockAllowed = []ClockAllow{
	{"internal/testkit", "the test kit's real-time polling and bounds (Eventually, Bound): it measures real time on purpose"},
}

// pureLayers may read no clock at all: samples in, verdicts and estimates out (../../shared/STYLE.md).
var pureLayers = []string{Module + "/judge", Module + "/scanmatch", Module + "/kinematics", Module + "/protocol"}

// clockSeam and mainWiring may read the clock directly: the seam itself, and the commands that wire it.
var clockSeam, mainWiring = Module + "/clock", Module + "/cmd"

// ClockCall is one direct use of package time's clock.
type ClockCall struct {
	Pos  token.Position
	Func string // "time.Now", as written; `import . "time"` for a dot import
}

func (c ClockCall) String() string {
	return fmt.Sprintf("%s:%d: %s", c.Pos.Filename, c.Pos.Line, c.Func)
}

// ClockCalls returns every use of one of ClockFuncs in f, called or not (`now := time.Now` is a use too),
// under whatever name f imports package time as. A dot import of time is reported itself: without type
// information its calls cannot be told from a local Now. A local identifier that shadows the import name is
// not package time (go/parser resolves it to its declaration).
func ClockCalls(fset *token.FileSet, f *ast.File) []ClockCall {
	names := map[string]bool{}
	var out []ClockCall
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err != nil || p != "time" {
			continue
		}
		switch {
		case imp.Name == nil:
			names["time"] = true
		case imp.Name.Name == ".":
			out = append(out, ClockCall{fset.Position(imp.Pos()), `import . "time"`})
		case imp.Name.Name != "_":
			names[imp.Name.Name] = true
		}
	}
	if len(names) == 0 {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if ok && names[id.Name] && id.Obj == nil && slices.Contains(ClockFuncs, sel.Sel.Name) {
			out = append(out, ClockCall{fset.Position(sel.Pos()), id.Name + "." + sel.Sel.Name})
		}
		return true
	})
	return out
}

// SourcePackage is a package's non-test files as `go list -e -json` reports them. IgnoredGoFiles holds the
// files another platform or build tag would build (threadcpu_other.go, the ros2-tagged cgo files): they are
// non-test code too.
type SourcePackage struct {
	ImportPath                        string
	Dir                               string
	GoFiles, CgoFiles, IgnoredGoFiles []string
}

// ScanClockCalls parses every non-test .go file of pkgs and returns their direct clock uses by import path,
// with file names relative to root.
func ScanClockCalls(root string, pkgs []SourcePackage) (map[string][]ClockCall, error) {
	calls := map[string][]ClockCall{}
	for _, p := range pkgs {
		var files []string
		for _, f := range slices.Concat(p.GoFiles, p.CgoFiles, p.IgnoredGoFiles) {
			if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") && !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
		for _, name := range files {
			path := filepath.Join(p.Dir, name)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0) // with object resolution: a shadowing local is seen
			if err != nil {
				return nil, fmt.Errorf("parse %s: %w", path, err)
			}
			for _, c := range ClockCalls(fset, f) {
				if rel, err := filepath.Rel(root, c.Pos.Filename); err == nil {
					c.Pos.Filename = rel
				}
				calls[p.ImportPath] = append(calls[p.ImportPath], c)
			}
		}
	}
	return calls, nil
}

// allowedBy returns the entry of allowed that covers pkg, if any.
func allowedBy(pkg string, allowed []ClockAllow) (ClockAllow, bool) {
	for _, a := range allowed {
		if p, sub := strings.CutSuffix(a.Pkg, "/..."); sub && under(pkg, Module+"/"+p) || pkg == Module+"/"+a.Pkg {
			return a, true
		}
	}
	return ClockAllow{}, false
}

// CheckClock returns the violations of the one time seam in calls (ScanClockCalls), one sentence each,
// sorted; none when it holds.
//
//   - A pure layer (judge/..., scanmatch, kinematics, protocol/...) reads no clock, and no allowlist entry may
//     cover one.
//   - Any other package outside clock and cmd/... reads none either, unless an entry of allowed covers it.
//   - Every entry of allowed must still cover a direct call (else it is stale and must be deleted).
func CheckClock(calls map[string][]ClockCall, allowed []ClockAllow) []string {
	var out []string
	for _, a := range allowed {
		p, _ := strings.CutSuffix(a.Pkg, "/...")
		if underAny(Module+"/"+p, pureLayers) || slices.ContainsFunc(pureLayers, func(l string) bool { return under(l, Module+"/"+p) }) {
			out = append(out, fmt.Sprintf("clock allowlist entry %s covers a pure layer (judge, scanmatch, kinematics, protocol): those read no clock, ever", a.Pkg))
		}
		used := false
		for pkg, cs := range calls {
			if _, ok := allowedBy(pkg, []ClockAllow{a}); ok && len(cs) > 0 {
				used = true
			}
		}
		if !used {
			out = append(out, fmt.Sprintf("clock allowlist entry %s: no direct clock call left; delete it from layers.ClockAllowed", a.Pkg))
		}
	}
	for pkg, cs := range calls {
		pure := underAny(pkg, pureLayers)
		if !pure {
			if under(pkg, clockSeam) || under(pkg, mainWiring) {
				continue
			}
			if _, ok := allowedBy(pkg, allowed); ok {
				continue
			}
		}
		for _, c := range cs {
			why := "take a clock.Clock, Timers or Full (a field defaulting to clock.Real{})"
			if pure {
				why = "a pure layer reads no clock: take the time as a value"
			}
			out = append(out, fmt.Sprintf("%s: direct %s in %s: %s", c.Pos.Filename+":"+strconv.Itoa(c.Pos.Line), c.Func, trim(pkg), why))
		}
	}
	sort.Strings(out)
	return out
}

// ClockCounts returns the number of direct clock calls under each entry of allowed, in its order.
func ClockCounts(calls map[string][]ClockCall, allowed []ClockAllow) []int {
	n := make([]int, len(allowed))
	for pkg, cs := range calls {
		for i, a := range allowed {
			if _, ok := allowedBy(pkg, []ClockAllow{a}); ok {
				n[i] += len(cs)
			}
		}
	}
	return n
}
