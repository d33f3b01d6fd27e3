package supervisor_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// binDir holds the rosorin-base binary built once for the end-to-end tests and a copy of this test binary
// used as the unprivileged second opener (mode 0755 so uid 65534 can run it).
var binDir string

const openerEnv = "ROSORIN_TEST_OPENER"

func TestMain(m *testing.M) {
	if dev := os.Getenv(openerEnv); dev != "" {
		os.Exit(opener(dev))
	}
	os.Exit(run(m))
}

// opener is the second opener: it opens dev read-write the way any program would (no lock) and reports the
// result by exit code: 0 opened, 3 EBUSY, 4 other error.
func opener(dev string) int {
	fd, err := unix.Open(dev, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		fmt.Println("open:", err)
		if errors.Is(err, unix.EBUSY) {
			return 3
		}
		return 4
	}
	unix.Close(fd)
	fmt.Println("opened")
	return 0
}

func run(m *testing.M) int {
	if !needsBinary() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "rosorin-sup-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	_ = os.Chmod(dir, 0o755)
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "rosorin-base"), "./cmd/rosorin-base")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build rosorin-base:", err)
		return 1
	}
	if err := copyFile(os.Args[0], filepath.Join(dir, "opener")); err != nil {
		fmt.Fprintln(os.Stderr, "copy opener:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the module")
	}
	return filepath.Dir(mod), nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
