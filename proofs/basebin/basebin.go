package basebin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// Package is the import path of the driver's command, built from the source tree when it is at hand.
const Package = "github.com/rosorin/rosorin/cmd/rosorin-base"

// Bin is the rosorin-base binary a simulated robot runs, and how it was chosen: a proof is only worth
// something if it names the code it proved.
type Bin struct {
	Path string `json:"path"`
	// How says where it came from: "built from the source tree DIR", "--base-bin", "next to stopproof",
	// "$PATH".
	How string `json:"how"`
	// Version is the module version, VCS revision (+dirty when the tree had changes) and Go version from the
	// binary's build information, or why it could not be read.
	Version string `json:"version"`
	// SHA256 is the binary's digest (first 12 hex digits), "" if unreadable.
	SHA256 string `json:"sha256,omitempty"`
}

// String is the line a person reads: "rosorin-base /tmp/x/rosorin-base (devel 755eb76a+dirty go1.26,
// sha256 1a2b3c4d5e6f): built from the source tree /src/cmd/rosorin-base".
func (b Bin) String() string {
	sum := ""
	if b.SHA256 != "" {
		sum = ", sha256 " + b.SHA256
	}
	return fmt.Sprintf("rosorin-base %s (%s%s): %s", b.Path, b.Version, sum, b.How)
}

// Find picks the rosorin-base binary the simulated robot runs, says which on out, and returns it
// with its version.
//
//  1. flag (--base-bin), when given: the person named the binary to prove. When the source tree is also at
//     hand the line says that the tree is not what is proven.
//  2. The source tree, whenever the go tool is on $PATH and `go list` finds Package from the working
//     directory (a clone running `go run ./cmd/stopproof ...`): built into dir every time, so the proof
//     proves the code in the tree and never an installed copy (deploy/README installs
//     /usr/local/bin/rosorin-base, which once silently won over the tree). Go's build cache makes this about
//     a second. A tree that does not build is an error, not a reason to prove something else.
//  3. Next to the running executable (a release unpacked beside stopproof).
//  4. $PATH.
func Find(ctx context.Context, flag, dir string, out io.Writer) (Bin, error) {
	if out == nil {
		out = io.Discard
	}
	srcDir, srcErr := sourceTree(ctx)
	var b Bin
	switch {
	case flag != "":
		if err := executable(flag); err != nil {
			return Bin{}, fmt.Errorf("--base-bin %s: %w", flag, err)
		}
		b = Bin{Path: flag, How: "--base-bin"}
		if srcErr == nil {
			b.How += " (the source tree " + srcDir + " is NOT what this run proves)"
		}
	case srcErr == nil:
		fmt.Fprintf(out, "building rosorin-base from the source tree %s ...\n", srcDir)
		bin := filepath.Join(dir, "rosorin-base")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, Package)
		if o, err := build.CombinedOutput(); err != nil {
			return Bin{}, fmt.Errorf("go build %s: %v\n%s\nfix the tree, or pass --base-bin PATH to prove another binary", Package, err, bytes.TrimSpace(o))
		}
		b = Bin{Path: bin, How: "built from the source tree " + srcDir + treeRevision(ctx, srcDir)}
		if wantBridge() {
			if _, err := buildBridge(ctx, dir); err != nil {
				return Bin{}, err
			}
			b.How += ", with the ROS 2 bridge rosorin-ros2 beside it"
		}
	default:
		if exe, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(exe), "rosorin-base"); executable(p) == nil {
				b = Bin{Path: p, How: "next to stopproof (no source tree here: " + srcErr.Error() + ")"}
				break
			}
		}
		if b.Path == "" {
			p, err := exec.LookPath("rosorin-base")
			if err != nil {
				return Bin{}, fmt.Errorf("rosorin-base not found: no source tree to build it from (%v), none next to stopproof, none on $PATH: run from the rosorin source tree, or pass --base-bin PATH", srcErr)
			}
			b = Bin{Path: p, How: "$PATH (no source tree here: " + srcErr.Error() + ")"}
		}
	}
	b.Version, b.SHA256 = binVersion(b.Path), binDigest(b.Path)
	fmt.Fprintln(out, b)
	return b, nil
}

// sourceTree returns the directory of Package's source when the go tool can build it from here.
func sourceTree(ctx context.Context) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		return "", errors.New("no go tool on $PATH")
	}
	// `go list` answers only inside the module (or a workspace holding it).
	o, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}", Package).CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(o))
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return "", fmt.Errorf("go list %s: %s", Package, msg)
	}
	return strings.TrimSpace(string(o)), nil
}

// treeRevision is " at commit REV" (+"-dirty" with uncommitted changes) of the tree at dir, "" when git
// cannot tell. The binary's own build information carries it only when VCS stamping is on, and CI and
// this project's machines build with -buildvcs=false.
func treeRevision(ctx context.Context, dir string) string {
	o, err := exec.CommandContext(ctx, "git", "-C", dir, "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return ""
	}
	return " at commit " + strings.TrimSpace(string(o))
}

// binVersion reads the module version, VCS revision and Go version the binary was built with.
func binVersion(path string) string {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "version unknown: " + err.Error()
	}
	return BuildVersion(bi) + " " + bi.GoVersion
}

// BuildVersion is the module version and VCS revision a build recorded ("(devel) 0123456789ab+dirty"): the
// toolkit version in proof records, of stopproof itself and of the rosorin-base binary it proves.
func BuildVersion(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + dirty
	}
	return v
}

func binDigest(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}
