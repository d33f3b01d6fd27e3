package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BasePackage is the import path of the driver's command, built when no binary is found.
const BasePackage = "github.com/rosorin/rosorin/cmd/rosorin-base"

// FindBaseBin locates the rosorin-base binary the simulated robot runs: the flag's path, else next to the
// running executable, else on $PATH, else it builds one into dir with the go tool when this module's source
// is at hand (a fresh clone running `go run ./cmd/stopproof ...`). It says on out when it builds.
func FindBaseBin(ctx context.Context, flag, dir string, out io.Writer) (string, error) {
	if flag != "" {
		if err := executable(flag); err != nil {
			return "", fmt.Errorf("--base-bin %s: %w", flag, err)
		}
		return flag, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "rosorin-base")
		if executable(p) == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("rosorin-base"); err == nil {
		return p, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("rosorin-base not found (not next to stopproof, not on $PATH) and no go tool to build it: pass --base-bin PATH")
	}
	// Is the module's source here? `go list` answers only inside the module (or a workspace holding it).
	list := exec.CommandContext(ctx, goTool, "list", BasePackage)
	if b, err := list.CombinedOutput(); err != nil {
		return "", fmt.Errorf("rosorin-base not found (not next to stopproof, not on $PATH) and %s cannot be built here (%s): run from the rosorin source tree, or pass --base-bin PATH",
			BasePackage, strings.TrimSpace(string(b)))
	}
	fmt.Fprintln(out, "building rosorin-base for the simulated robot ...")
	bin := filepath.Join(dir, "rosorin-base")
	build := exec.CommandContext(ctx, goTool, "build", "-o", bin, BasePackage)
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", BasePackage, err, b)
	}
	return bin, nil
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
