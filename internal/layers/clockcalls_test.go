package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goListSources is every package of the module with its non-test files (`go list -e`: a package that does
// not build is still listed with its files), and the module's root directory.
func goListSources(t *testing.T) (string, []SourcePackage) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root := strings.TrimSpace(string(out))
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Dir,GoFiles,CgoFiles,IgnoredGoFiles", Module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var pkgs []SourcePackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p SourcePackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return root, pkgs
}

// TestClockCalls: no package reads package time's clock directly outside clock, cmd/... and the packages of
// ClockAllowed (whose counts it logs: `go test -v -run TestClockCalls ./internal/layers`).
func TestClockCalls(t *testing.T) {
	root, pkgs := goListSources(t)
	// The listing must hold what the rules are about, or an empty one would pass.
	for _, p := range []string{"clock", "driver", "driver/supervisor", "driver/lidar", "judge/contact", "protocol/board", "sim"} {
		if !slices.ContainsFunc(pkgs, func(q SourcePackage) bool { return q.ImportPath == Module+"/"+p }) {
			t.Fatalf("go list did not list %s", p)
		}
	}
	calls, err := ScanClockCalls(root, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls[Module+"/clock"]) == 0 {
		t.Fatal("no direct clock call found in package clock itself: the scan sees nothing")
	}
	for _, v := range CheckClock(calls, ClockAllowed) {
		t.Error(v)
	}
	for i, n := range ClockCounts(calls, ClockAllowed) {
		t.Logf("%-20s %3d direct clock calls (%s)", ClockAllowed[i].Pkg, n, ClockAllowed[i].Why)
	}
	t.Logf("%-20s %3d (the seam)", "clock", len(calls[Module+"/clock"]))
	cmds := 0
	for pkg, cs := range calls {
		if under(pkg, mainWiring) {
			cmds += len(cs)
		}
	}
	t.Logf("%-20s %3d (main wiring)", "cmd/...", cmds)
}

// fakeSource is a driver package's file with direct clock uses: a call, a method value and an aliased import,
// beside a shadowing local and arithmetic that are not clock reads.
const fakeSource = `package fake

import (
	"time"
	tm "time"
)

func f() time.Duration {
	start := time.Now()
	now := time.Now
	_ = now
	<-tm.After(time.Second)
	return start.Add(time.Second).Sub(start)
}

func g(time struct{ Now func() int }) int { return time.Now() }
`

// TestClockCallsNegativeControl: a direct time.Now in a driver package, its method value and an aliased
// import's After are reported with file and line, through the same parse and check as the module's files; a
// shadowing local and time arithmetic are not.
func TestClockCallsNegativeControl(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "driver", "fake")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fake.go"), []byte(fakeSource), 0o644); err != nil {
		t.Fatal(err)
	}
	// A test file may read the clock: it is not scanned.
	if err := os.WriteFile(filepath.Join(dir, "fake_test.go"), []byte("package fake\n\nimport \"time\"\n\nvar _ = time.Now()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := SourcePackage{ImportPath: Module + "/driver/fake", Dir: dir, GoFiles: []string{"fake.go"}, IgnoredGoFiles: []string{"fake_test.go"}}
	calls, err := ScanClockCalls(root, []SourcePackage{pkg})
	if err != nil {
		t.Fatal(err)
	}
	got := CheckClock(calls, nil)
	file := filepath.Join("driver", "fake", "fake.go")
	want := []string{
		file + ":9: direct time.Now in driver/fake",
		file + ":10: direct time.Now in driver/fake", // now := time.Now
		file + ":12: direct tm.After in driver/fake",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w+":") }) {
			t.Errorf("no violation %q in:\n%s", w, strings.Join(got, "\n"))
		}
	}
	// An allowlist entry for the package silences it, and counts what it covers.
	allow := []ClockAllow{{"driver/...", "test"}}
	if v := CheckClock(calls, allow); len(v) != 0 {
		t.Errorf("allowlisted: %v", v)
	}
	if n := ClockCounts(calls, allow); n[0] != 3 {
		t.Errorf("count %d, want 3", n[0])
	}
}

// TestCheckClockRules: the seam, main wiring, pure layers, the allowlist and stale entries.
func TestCheckClockRules(t *testing.T) {
	call := func(pkg string) map[string][]ClockCall {
		return map[string][]ClockCall{Module + "/" + pkg: {{Pos: token.Position{Filename: pkg + "/x.go", Line: 7}, Func: "time.Now"}}}
	}
	for _, c := range []struct {
		name  string
		calls map[string][]ClockCall
		allow []ClockAllow
		want  string // a substring of the one violation; "" = none
	}{
		{"the seam", call("clock"), nil, ""},
		{"main wiring", call("cmd/rosorin-base"), nil, ""},
		{"allowlisted subtree", call("ros2/sros2"), []ClockAllow{{"ros2/...", ""}}, ""},
		{"allowlisted package", call("sim"), []ClockAllow{{"sim", ""}}, ""},
		{"not below an exact entry", call("sim/world"), []ClockAllow{{"sim", ""}, {"replay", ""}}, "sim/world/x.go:7: direct time.Now"},
		{"driver", call("driver/supervisor"), nil, "driver/supervisor/x.go:7: direct time.Now"},
		{"a judge", call("judge/contact"), nil, "pure layer reads no clock"},
		{"a judge allowlisted", call("judge/contact"), []ClockAllow{{"judge/contact", ""}}, "covers a pure layer"},
		{"protocol's test double allowlisted", call("protocol/board/boardtest"), []ClockAllow{{"protocol/...", ""}}, "covers a pure layer"},
		{"stale entry", call("clock"), []ClockAllow{{"replay", ""}}, "no direct clock call left"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := CheckClock(c.calls, c.allow)
			if c.want == "" {
				if len(v) != 0 {
					t.Fatalf("violations %v, want none", v)
				}
				return
			}
			if !slices.ContainsFunc(v, func(s string) bool { return strings.Contains(s, c.want) }) {
				t.Fatalf("violations %v, want one with %q", v, c.want)
			}
		})
	}
}

// TestClockCallsImports: a dot import is reported itself; a blank import and a file without time are clean.
func TestClockCallsImports(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string
	}{
		{"package a\nimport . \"time\"\nvar x = Now()\n", []string{`import . "time"`}},
		{"package a\nimport _ \"time\"\n", nil},
		{"package a\nfunc Now() int { return 0 }\nvar x = Now()\n", nil},
		{"package a\nimport \"time\"\nvar d = time.Duration(3) * time.Second\nvar t0 = time.Unix(0, 0)\n", nil},
		{"package a\nimport \"time\"\nvar c = time.Tick(time.Second)\nvar u = time.Until\nvar f = time.AfterFunc\n", []string{"time.Tick", "time.Until", "time.AfterFunc"}},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "a.go", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cc := range ClockCalls(fset, f) {
			got = append(got, cc.Func)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.src, got, c.want)
		}
	}
}
