//go:build ros2 && linux && cgo

package ros2_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/target"
)

// The peers are built once per content: into the user's cache (rosorin-ros2-peers), one folder per peer and
// hash of the sources and commands it is built from, so the next test process (CI's race run, the next go test)
// finds it there instead of running g++ again (a Fast DDS peer takes 20-40 s of g++ on the 2-core machine).
// Within one test process the first test that asks builds; the others wait for it.
var (
	peerMu sync.Mutex
	peers  = map[string]*peerBuild{}
)

type peerBuild struct {
	once sync.Once
	path string
	err  error
}

// buildOnce returns name's binary, built by make(dir) the first time a test asks for name with these inputs
// (the files under testdata it is built from and the commands, which make's key names); a failed build fails
// every test that asks for it, with the same error. A build is written to a temporary folder and renamed into
// the cache when it is complete, so a crash mid-build leaves nothing a later run would take for a peer.
func buildOnce(t *testing.T, name string, key []string, make func(dir string) error) string {
	t.Helper()
	peerMu.Lock()
	b := peers[name]
	if b == nil {
		b = &peerBuild{}
		peers[name] = b
	}
	peerMu.Unlock()
	b.once.Do(func() { b.path, b.err = buildCachedPeer(t, name, key, make) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// peerKey hashes what makes a peer: this file (its build commands), the files it is built from (paths relative
// to testdata), the words (its kind and name) and the toolchain (the compiler's version, the libraries' real
// paths, which carry their versions). Its cache folder's name changes when any of them does.
func peerKey(files []string, words ...string) (string, error) {
	h := sha256.New()
	for _, w := range words {
		fmt.Fprintf(h, "w %q\n", w)
	}
	for _, tool := range []string{"gcc", "g++"} {
		out, _ := exec.Command(tool, "--version").Output()
		first, _, _ := strings.Cut(string(out), "\n")
		fmt.Fprintf(h, "t %q\n", first)
		for _, lib := range []string{"libddsc.so", "libfastrtps.so", "libfastcdr.so"} {
			out, _ := exec.Command(tool, "-print-file-name="+lib).Output()
			real, _ := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
			fmt.Fprintf(h, "l %q %q\n", lib, real)
		}
	}
	for _, f := range append([]string{"../peers_test.go"}, files...) {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "f %q %d\n", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

func buildCachedPeer(t *testing.T, name string, key []string, make func(dir string) error) (string, error) {
	sum, err := peerKey(key[1:], key[0])
	if err != nil {
		return "", err
	}
	root := filepath.Join(os.TempDir(), "rosorin-ros2-peers")
	if c, err := os.UserCacheDir(); err == nil {
		root = filepath.Join(c, "rosorin-ros2-peers")
	}
	final := filepath.Join(root, name+"-"+sum)
	bin := filepath.Join(final, name)
	if _, err := os.Stat(bin); err == nil {
		t.Logf("%s: built before (%s)", name, final)
		return bin, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, name+"-building-")
	if err != nil {
		return "", err
	}
	start := time.Now()
	if err := make(dir); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(dir, final); err != nil {
		// Another test process finished the same build first: take its.
		os.RemoveAll(dir)
		if _, serr := os.Stat(bin); serr != nil {
			return "", err
		}
	}
	t.Logf("%s built in %.1f s (%s)", name, time.Since(start).Seconds(), final)
	prunePeers(root, name, final)
	return bin, nil
}

// prunePeers removes the builds of name other than keep that are over a week old: the cache keeps the
// builds of the checkouts in use and does not grow with every edit of a peer.
func prunePeers(root, name, keep string) {
	old, _ := filepath.Glob(filepath.Join(root, name+"-*"))
	for _, d := range old {
		if fi, err := os.Stat(d); err == nil && d != keep && time.Since(fi.ModTime()) > 7*24*time.Hour {
			os.RemoveAll(d)
		}
	}
}

// runIn runs the commands one after the other in dir; the first failure is returned with its output.
func runIn(dir string, cmds ...[]string) error {
	for _, c := range cmds {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Dir = dir
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(c, " "), err, o)
		}
	}
	return nil
}

// cycloneHint is what the C peers need.
const cycloneHint = "apt-get install cyclonedds-dev cyclonedds-tools gcc"

// buildCPeer builds a C peer on Cyclone's own typed API: idlc's types of testdata/IDL (Cyclone's serializer,
// not ours) and testdata/SRC, linked against libddsc, as the binary name.
func buildCPeer(t *testing.T, name, idl, src string) string {
	t.Helper()
	key := []string{"c " + name, idl, src}
	return buildOnce(t, name, key, func(dir string) error {
		idlc, err := exec.LookPath("idlc")
		if err != nil {
			return fmt.Errorf("idlc not found (%s): %v", cycloneHint, err)
		}
		td, _ := filepath.Abs("testdata")
		types := strings.TrimSuffix(filepath.Base(idl), ".idl") + ".c"
		if err := runIn(dir,
			[]string{idlc, filepath.Join(td, idl)},
			[]string{"gcc", "-O1", "-Wall", "-Werror", "-o", name, filepath.Join(td, src), types, "-I.", "-lddsc"},
		); err != nil {
			return fmt.Errorf("%v\n(the C peers need `%s`)", err, cycloneHint)
		}
		return nil
	})
}

// fastDDSHint is what the Fast DDS peers need (Debian bookworm: Fast DDS 2.9.1, fastddsgen 2.3.0).
const fastDDSHint = "apt-get install libfastrtps-dev fastddsgen g++"

// buildFastDDSPeer builds a C++ peer on Fast DDS: fastddsgen's types of testdata/IDL (Fast CDR's serializer,
// not ours) and testdata/SRC (with -Werror), linked against libfastrtps and libfastcdr, as the binary name.
// The three units compile in parallel (Fast DDS's headers make each one slow). Without fastddsgen the test is
// skipped, unless ROSORIN_REQUIRE_FASTDDS=1 (the CI), which makes it a failure.
func buildFastDDSPeer(t *testing.T, name, idl, src string) string {
	t.Helper()
	if _, err := exec.LookPath("fastddsgen"); err != nil {
		msg := "fastddsgen not found: the Fast DDS peer needs `" + fastDDSHint + "`"
		if os.Getenv("ROSORIN_REQUIRE_FASTDDS") == "1" {
			t.Fatal(msg + " (ROSORIN_REQUIRE_FASTDDS=1)")
		}
		t.Skip(msg)
	}
	key := []string{"fastdds " + name, idl, src, "fastcommon/fastcommon.hpp"}
	return buildOnce(t, name, key, func(dir string) error {
		td, _ := filepath.Abs("testdata")
		base := strings.TrimSuffix(filepath.Base(idl), ".idl")
		if err := runIn(dir, []string{"fastddsgen", "-replace", "-d", dir, filepath.Join(td, idl)}); err != nil {
			return fmt.Errorf("%v\n(the Fast DDS peer needs `%s`)", err, fastDDSHint)
		}
		units := [][]string{
			{"g++", "-O1", "-Wall", "-Wextra", "-Werror", "-I.", "-I" + filepath.Join(td, "fastcommon"), "-c", "-o", name + ".o", filepath.Join(td, src)},
			{"g++", "-O1", "-I.", "-c", "-o", base + ".o", base + ".cxx"},
			{"g++", "-O1", "-I.", "-c", "-o", base + "PubSubTypes.o", base + "PubSubTypes.cxx"},
		}
		errs := make([]error, len(units))
		var wg sync.WaitGroup
		for i, u := range units {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = runIn(dir, u) }()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return fmt.Errorf("%v\n(the Fast DDS peer needs `%s`)", err, fastDDSHint)
			}
		}
		return runIn(dir, []string{"g++", "-o", name, name + ".o", base + ".o", base + "PubSubTypes.o", "-lfastrtps", "-lfastcdr"})
	})
}

// The peers of the tests, by what they check.
func buildPeer(t *testing.T) string { return buildCPeer(t, "peer", "peer/ros.idl", "peer/peer.c") }
func buildOneShot(t *testing.T) string {
	return buildCPeer(t, "oneshot", "peer/ros.idl", "peer/oneshot.c")
}
func buildParamsPeer(t *testing.T) string {
	return buildCPeer(t, "paramspeer", "peer/params.idl", "peer/params.c")
}
func buildObsPeer(t *testing.T) string {
	return buildCPeer(t, "obspeer", "obspeer/obs.idl", "obspeer/obspeer.c")
}
func buildFastPeer(t *testing.T) string {
	return buildFastDDSPeer(t, "fastpeer", "fastpeer/ros.idl", "fastpeer/fastpeer.cpp")
}
func buildFastParams(t *testing.T) string {
	return buildFastDDSPeer(t, "fastparams", "fastpeer/params.idl", "fastpeer/fastparams.cpp")
}
func buildFastObsPeer(t *testing.T) string {
	return buildFastDDSPeer(t, "fastobspeer", "obspeer/obs.idl", "fastobspeer/fastobspeer.cpp")
}

// buildTagged returns rosorin-base and, beside it, the bridge rosorin-ros2, built with -tags ros2 (and -race
// under race) once per test process; `run --ros2` finds the bridge there.
func buildTagged(t *testing.T) string {
	t.Helper()
	if _, err := testkit.BinaryTags("./cmd/rosorin-ros2", "ros2"); err != nil {
		t.Fatal(err)
	}
	base, err := testkit.BinaryTags("./cmd/rosorin-base", "ros2")
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// startSimTarget starts a simulated robot and `rosorin-base run --ros2` (the tagged build, ROSORIN_ROS2=1) on it
// with seed 1, its log in a file of the test's; the test's end stops both and logs the log if it failed.
func startSimTarget(t *testing.T, timeout time.Duration, cfg target.SimConfig) (st *target.SimTarget, logPath string) {
	t.Helper()
	t.Setenv("ROSORIN_ROS2", "1")
	if cfg.BaseBin == "" {
		cfg.BaseBin = buildTagged(t)
	}
	if cfg.BaseLog == "" {
		cfg.BaseLog = filepath.Join(t.TempDir(), "base.log")
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(timeout))
	defer cancel()
	st, err := target.StartSim(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		if t.Failed() {
			b, _ := os.ReadFile(cfg.BaseLog)
			t.Logf("rosorin-base log:\n%s", b)
		}
	})
	return st, cfg.BaseLog
}

// TestPeersBuild builds every peer into the peer cache (or finds it there). CI runs it before its real-time
// lanes, so that no compiler runs beside them; elsewhere the first test that needs a peer builds it.
func TestPeersBuild(t *testing.T) {
	for _, build := range []func(*testing.T) string{buildPeer, buildOneShot, buildParamsPeer, buildObsPeer,
		buildFastPeer, buildFastParams, buildFastObsPeer} {
		if bin := build(t); bin == "" {
			t.Fatal("a peer build returned no binary")
		} else if _, err := os.Stat(bin); err != nil {
			t.Fatal(err)
		}
	}
}
