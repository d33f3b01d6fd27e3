package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// goList is the import table of every package of the module and everything they import (non-test imports).
func goList(t *testing.T, tags string) []Package {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-tags", tags, "-json=ImportPath,Standard,Imports", Module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -tags %q: %v\n%s", tags, err, stderr.Bytes())
	}
	var table []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		table = append(table, p)
	}
	return table
}

func find(table []Package, path string) *Package {
	for i := range table {
		if table[i].ImportPath == path {
			return &table[i]
		}
	}
	return nil
}

// The tree as it stands: no violations, with and without the ros2 build tag (the bridge's cgo files).
func TestLayers(t *testing.T) {
	for _, tags := range []string{"", "ros2"} {
		t.Run("tags="+tags, func(t *testing.T) {
			table := goList(t, tags)
			// The table must hold what the rules are about, or an empty table would pass.
			for _, p := range []string{"judge/vibration", "judge/odometry", "judge/contact", "judge/scanloss", "judge/still", "judge/ramp", "judge/envelope", "driver", "driver/config",
				"driver/standtest", "cmd/rosorin-base", "scanmatch"} {
				if find(table, Module+"/"+p) == nil {
					t.Fatalf("go list did not list %s", p)
				}
			}
			for _, v := range Check(table, Exceptions) {
				t.Error(v)
			}
			for _, p := range table {
				if under(p.ImportPath, Module+"/judge") {
					t.Logf("%s: %v", p.ImportPath, p.Imports)
				}
			}
		})
	}
}

// A small table in which the layers hold: the base of the negative controls.
func cleanTable() []Package {
	m := Module + "/"
	return []Package{
		{ImportPath: "fmt", Standard: true, Imports: []string{"os"}},
		{ImportPath: "os", Standard: true},
		{ImportPath: "math", Standard: true},
		{ImportPath: "time", Standard: true},
		{ImportPath: "gonum.org/v1/gonum/stat", Imports: []string{"math"}},
		{ImportPath: m + "protocol/coind6", Imports: []string{"fmt"}},
		{ImportPath: m + "kinematics", Imports: []string{"math"}},
		{ImportPath: m + "scanmatch", Imports: []string{m + "protocol/coind6", "gonum.org/v1/gonum/stat"}},
		{ImportPath: m + "judge/vibration", Imports: []string{"fmt", "math", "gonum.org/v1/gonum/stat"}},
		{ImportPath: m + "judge/contact", Imports: []string{"time", m + "kinematics", m + "scanmatch", m + "judge/vibration"}},
		{ImportPath: m + "protocol/rosname", Imports: []string{"fmt"}},
		{ImportPath: m + "protocol/rosargs", Imports: []string{m + "protocol/rosname"}},
		{ImportPath: m + "ros2", Imports: []string{m + "protocol/rosname"}},
		{ImportPath: m + "driver/config", Imports: []string{m + "protocol/rosargs", m + "judge/contact"}},
		{ImportPath: m + "driver/motion", Imports: []string{m + "kinematics"}},
		{ImportPath: m + "driver", Imports: []string{"os", m + "driver/config", m + "driver/motion", m + "judge/contact"}},
		{ImportPath: m + "sim", Imports: []string{m + "protocol/coind6"}},
		{ImportPath: m + "internal/testkit", Imports: []string{"os", m + "sim"}},
		{ImportPath: m + "internal/stacktest", Imports: []string{m + "internal/testkit"}},
		{ImportPath: m + "driver/standtest", Imports: []string{m + "internal/testkit", m + "driver"}},
		{ImportPath: m + "proofs/stand", Imports: []string{m + "judge/vibration", m + "sim"}},
		{ImportPath: m + "cmd/rosorin-base", Imports: []string{m + "driver"}},
	}
}

// clone copies a table deeply, so a case's edge does not leak into the next.
func clone(table []Package) []Package {
	out := make([]Package, len(table))
	for i, p := range table {
		p.Imports = slices.Clone(p.Imports)
		out[i] = p
	}
	return out
}

func addImport(t *testing.T, table []Package, from, to string) {
	t.Helper()
	p := find(table, Module+"/"+from)
	if p == nil {
		t.Fatalf("no package %s in the table", from)
	}
	// to is the standard library's (os, sync), another module's (a dot in its first element) or this one's.
	if to != "os" && to != "sync" && !strings.Contains(strings.Split(to, "/")[0], ".") {
		to = Module + "/" + to
	}
	p.Imports = append(p.Imports, to)
}

// Negative controls: each forbidden edge added to a clean table must be reported, once, naming it.
func TestCheckNegativeControls(t *testing.T) {
	if v := Check(cleanTable(), Exceptions); len(v) != 0 {
		t.Fatalf("the clean table has violations: %q", v)
	}
	cases := []struct {
		name, from, to string
		want           string // a substring of the one violation
	}{
		{"judge imports a runner", "judge/vibration", "proofs/stand", "judge judge/vibration may not use proofs/stand"},
		{"judge imports the driver", "judge/contact", "driver/motion", "judge judge/contact may not use driver/motion"},
		{"judge imports a third-party module", "judge/vibration", "github.com/olekukonko/tablewriter", "(judge/vibration -> github.com/olekukonko/tablewriter)"},
		{"judge reaches sim through scanmatch", "scanmatch", "sim", "judge judge/contact may not use sim (judge/contact -> scanmatch -> sim)"},
		{"judge imports os", "judge/vibration", "os", "judge judge/vibration may not import os"},
		{"judge imports sync", "judge/contact", "sync", "judge judge/contact may not import sync"},
		{"driver imports proofs", "driver/motion", "proofs/stand", "driver package driver/motion may not use proofs/stand"},
		{"driver imports sim", "driver", "sim", "driver package driver may not use sim"},
		{"driver imports testkit", "driver", "internal/testkit", "driver package driver may not use internal/testkit"},
		{"driver imports stacktest", "driver/motion", "internal/stacktest", "driver package driver/motion may not use internal/stacktest"},
		{"driver imports a test kit under driver", "driver/motion", "driver/standtest", "driver package driver/motion may not use driver/standtest"},
		{"a driver -> ros2 import", "driver/motion", "ros2", "driver package driver/motion may not use ros2"},
		{"command links a test kit", "cmd/rosorin-base", "internal/stacktest", "command cmd/rosorin-base may not use internal/stacktest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			table := clone(cleanTable())
			addImport(t, table, c.from, c.to)
			v := Check(table, Exceptions)
			hits := 0
			for _, s := range v {
				if strings.Contains(s, c.want) {
					hits++
				}
			}
			if hits != 1 {
				t.Errorf("want one violation containing %q, got %q", c.want, v)
			}
		})
	}

	// The exceptions are exact: one whose import is gone must be deleted from the list.
	t.Run("stale exception", func(t *testing.T) {
		table := clone(cleanTable())
		p := find(table, Module+"/driver/standtest")
		p.Imports = slices.DeleteFunc(p.Imports, func(s string) bool { return s == Module+"/internal/testkit" })
		v := Check(table, Exceptions)
		if len(v) != 1 || !strings.Contains(v[0], "exception driver/standtest -> internal/testkit: no such import any more") {
			t.Errorf("want the stale exception reported, got %q", v)
		}
	})
	// Without its exception the import that exists today is a violation.
	t.Run("exception removed", func(t *testing.T) {
		ex := slices.DeleteFunc(slices.Clone(Exceptions), func(e Edge) bool { return e.To == Module+"/internal/testkit" })
		v := Check(cleanTable(), ex)
		if len(v) == 0 || !slices.ContainsFunc(v, func(s string) bool {
			return strings.Contains(s, "driver/standtest") && strings.Contains(s, "internal/testkit")
		}) {
			t.Errorf("want driver/standtest -> internal/testkit reported, got %q", v)
		}
	})
}

// The real table with one forbidden edge: the checker sees it there too (not only in a toy table).
func TestCheckRealTableNegativeControl(t *testing.T) {
	table := goList(t, "")
	addImport(t, table, "judge/vibration", "driver")
	addImport(t, table, "driver/config", "proofs/stand")
	v := Check(table, Exceptions)
	for _, want := range []string{
		"judge judge/vibration may not use driver (judge/vibration -> driver)",
		"driver package driver/config may not use proofs/stand (driver/config -> proofs/stand)",
	} {
		if !slices.Contains(v, want) {
			t.Errorf("want %q among the violations, got %q", want, v)
		}
	}
}
