package basebin

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installedBase puts a fake installed rosorin-base first on $PATH (deploy/README installs one in
// /usr/local/bin) and returns its path.
func installedBase(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	p := filepath.Join(d, "rosorin-base")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho installed\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", d+string(os.PathListSeparator)+os.Getenv("PATH"))
	return p
}

// In the source tree the proof builds and proves the tree's driver, never the installed copy, and says so.
func TestFindBaseBinBuildsTheTreeOverAnInstalledCopy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rosorin-base")
	}
	installed := installedBase(t)
	dir := t.TempDir()
	var out bytes.Buffer
	b, err := Find(context.Background(), "", dir, &out)
	if err != nil {
		t.Fatal(err)
	}
	if b.Path != filepath.Join(dir, "rosorin-base") || b.Path == installed {
		t.Fatalf("proves %s, want the tree built into %s", b.Path, dir)
	}
	if !strings.HasPrefix(b.How, "built from the source tree ") || !strings.Contains(b.How, filepath.Join("cmd", "rosorin-base")) {
		t.Errorf("how %q", b.How)
	}
	// A Go binary built here: its build info names the Go version; the digest is of the file.
	if !strings.Contains(b.Version, " go1.") || len(b.SHA256) != 12 {
		t.Errorf("version %q, sha256 %q", b.Version, b.SHA256)
	}
	if !strings.Contains(out.String(), b.String()) {
		t.Errorf("output %q does not name the binary", out.String())
	}
}

// Outside the source tree: the installed copy, named with how it was found.
func TestFindBaseBinOutsideTheTreeUsesPATH(t *testing.T) {
	installed := installedBase(t)
	t.Chdir(t.TempDir())
	var out bytes.Buffer
	b, err := Find(context.Background(), "", t.TempDir(), &out)
	if err != nil {
		t.Fatal(err)
	}
	if b.Path != installed || !strings.HasPrefix(b.How, "$PATH (no source tree here: ") {
		t.Fatalf("%+v", b)
	}
	if !strings.Contains(b.Version, "version unknown") || !strings.Contains(out.String(), installed) {
		t.Errorf("%+v; output %q", b, out.String())
	}
}

// --base-bin names the binary to prove; inside the tree the line says the tree is not what is proven.
func TestFindBaseBinFlag(t *testing.T) {
	installed := installedBase(t)
	b, err := Find(context.Background(), installed, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Path != installed || !strings.Contains(b.How, "is NOT what this run proves") {
		t.Fatalf("%+v", b)
	}
	if _, err := Find(context.Background(), filepath.Join(t.TempDir(), "missing"), t.TempDir(), nil); err == nil {
		t.Error("a missing --base-bin was accepted")
	}
}
