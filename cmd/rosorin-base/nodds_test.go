package main

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

// TestROS2NoDDSInService: rosorin-base (the supervisor, the driver child, the LiDAR reader, the clients) has
// no DDS in it, with the ros2 tag or without: no package of ros2 among its dependencies, and a -tags ros2
// build does not link libddsc (ELF DT_NEEDED and ldd). So a missing or broken libddsc cannot keep the process
// that writes the stop frame from starting. The positive control: the bridge rosorin-ros2 built the same way
// does link libddsc (when cyclonedds-dev is installed), so the check sees a library when it is there.
func TestROS2NoDDSInService(t *testing.T) {
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, tags := range []string{"", "ros2"} {
		cmd := exec.Command("go", "list", "-tags", tags, "-deps", "./cmd/rosorin-base")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -tags %q -deps: %v", tags, err)
		}
		for _, p := range strings.Fields(string(out)) {
			// The node (package ros2) and the DDS binding (ros2/dds, cgo); the pure name and argument rules
			// (protocol/rosname, protocol/rosargs) are the command line's too.
			if p == "github.com/rosorin/rosorin/ros2" || p == "github.com/rosorin/rosorin/ros2/dds" {
				t.Errorf("-tags %q: cmd/rosorin-base depends on %s", tags, p)
			}
		}
	}
	if testing.Short() {
		t.Skip("builds rosorin-base and rosorin-ros2 with -tags ros2")
	}
	dir := t.TempDir()
	build := func(name string) (string, error) {
		out := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-tags", "ros2", "-o", out, "./cmd/"+name)
		cmd.Dir = root
		o, err := cmd.CombinedOutput()
		if err != nil {
			return "", &buildError{name, string(o), err}
		}
		return out, nil
	}
	base, err := build("rosorin-base")
	if err != nil {
		t.Fatal(err)
	}
	if libs := linksDDS(t, base); libs != "" {
		t.Errorf("rosorin-base built with -tags ros2 links %s", libs)
	}
	if _, err := exec.LookPath("pkg-config"); err != nil || exec.Command("pkg-config", "--exists", "CycloneDDS").Run() != nil {
		t.Log("positive control skipped: no cyclonedds-dev here")
		return
	}
	bridge, err := build("rosorin-ros2")
	if err != nil {
		t.Fatal(err)
	}
	if libs := linksDDS(t, bridge); !strings.Contains(libs, "libddsc") {
		t.Errorf("positive control: the bridge built with -tags ros2 does not show libddsc (%q): the check sees nothing", libs)
	}
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string {
	return "go build -tags ros2 ./cmd/" + e.name + ": " + e.err.Error() + "\n" + e.out
}

// linksDDS returns the DDS libraries bin needs, by its ELF DT_NEEDED entries and by ldd's resolution ("" for
// none). ldd of a static binary fails with "not a dynamic executable", which is no DDS either.
func linksDDS(t *testing.T, bin string) string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	needed, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	var dds []string
	for _, l := range needed {
		if strings.Contains(l, "ddsc") || strings.Contains(l, "cyclone") {
			dds = append(dds, "DT_NEEDED "+l)
		}
	}
	if _, err := exec.LookPath("ldd"); err == nil {
		out, _ := exec.Command("ldd", bin).CombinedOutput()
		t.Logf("ldd %s:\n%s", filepath.Base(bin), out)
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "ddsc") {
				dds = append(dds, "ldd: "+strings.TrimSpace(l))
			}
		}
	}
	return strings.Join(dds, "; ")
}
