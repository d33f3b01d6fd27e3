package rosmsg

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/protocol/cdr"
)

// TestGoldenMatchesCyclone checks the golden table against Cyclone DDS's own serializer: it builds
// testdata/cyclone/golden.c with idlc's code for testdata/cyclone/ros.idl against Debian's libddsc
// (cyclonedds-dev, cyclonedds-tools: the 0.10.2 line Humble's rmw_cyclonedds uses) and compares every case
// byte for byte. It skips without Cyclone installed, unless ROSORIN_REQUIRE_CYCLONE=1 (CI sets it), where a
// missing Cyclone is a failure.
func TestGoldenMatchesCyclone(t *testing.T) {
	got := cycloneCases(t, "ros.idl", "golden.c")
	for _, tc := range golden {
		c, ok := got[tc.name]
		if !ok {
			t.Errorf("%s: golden.c has no such case", tc.name)
			continue
		}
		if !bytes.Equal(c, tc.raw) {
			t.Errorf("%s: Cyclone writes\n % x\nthe table says\n % x", tc.name, c, tc.raw)
		}
		m := newLike(tc.msg)
		if err := cdr.Unmarshal(c, m); err != nil {
			t.Errorf("%s: Cyclone's bytes do not decode: %v", tc.name, err)
		}
	}
	if len(got) != len(golden) {
		t.Errorf("golden.c has %d cases, the table %d", len(got), len(golden))
	}
}

// cycloneCases builds testdata/cyclone/<csrc> with idlc's code for testdata/cyclone/<idl> against Debian's
// libddsc and returns the cases it prints (one "name TAB hex" line each). It skips without Cyclone installed,
// unless ROSORIN_REQUIRE_CYCLONE=1 (CI sets it), where a missing Cyclone is a failure.
func cycloneCases(t *testing.T, idl, csrc string, gccFlags ...string) map[string][]byte {
	t.Helper()
	idlc, err := exec.LookPath("idlc")
	_, herr := os.Stat("/usr/include/dds/dds.h")
	if err != nil || herr != nil {
		if os.Getenv("ROSORIN_REQUIRE_CYCLONE") == "1" {
			t.Fatalf("Cyclone DDS is required (ROSORIN_REQUIRE_CYCLONE=1) but idlc or dds/dds.h is missing: apt-get install cyclonedds-dev cyclonedds-tools")
		}
		t.Skip("Cyclone DDS not installed (apt-get install cyclonedds-dev cyclonedds-tools)")
	}
	dir := t.TempDir()
	src, _ := filepath.Abs("testdata/cyclone")
	run := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(idlc, filepath.Join(src, idl))
	gen := strings.TrimSuffix(idl, ".idl") + ".c"
	args := append([]string{"-O1"}, gccFlags...)
	args = append(args, "-o", "cases", filepath.Join(src, csrc), gen, "-I.", "-lddsc", "-lm")
	run("gcc", args...)
	got := map[string][]byte{}
	for _, line := range strings.Split(strings.TrimSpace(run(filepath.Join(dir, "cases"))), "\n") {
		name, h, ok := strings.Cut(line, "\t")
		b, err := hex.DecodeString(h)
		if !ok || err != nil {
			t.Fatalf("bad line from %s: %q", csrc, line)
		}
		got[name] = b
	}
	return got
}
