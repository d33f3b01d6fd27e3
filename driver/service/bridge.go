package service

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// BridgeName is the ROS 2 bridge's binary (cmd/rosorin-ros2, built with -tags ros2). It is a program of its
// own so that libddsc is loaded by it alone: rosorin-base, the supervisor and the driver child never link it,
// and a missing or broken DDS library costs the graph, never the stop path.
const BridgeName = "rosorin-ros2"

// BridgeEnv names the bridge binary (as --ros2-bridge does).
const BridgeEnv = "ROSORIN_ROS2_BRIDGE"

// BridgeBuildHint is how the bridge is built.
const BridgeBuildHint = "`go build -tags ros2 -o DIR/" + BridgeName + " ./cmd/" + BridgeName + "` (needs cyclonedds-dev, docs/ros2.md)"

// FindBridge returns the bridge binary: named (a path, or a name looked up on $PATH) when named is not "",
// else the one beside the running executable, else the one on $PATH.
func FindBridge(named string) (string, error) {
	if named != "" {
		if strings.ContainsRune(named, os.PathSeparator) {
			if err := executableFile(named); err != nil {
				return "", fmt.Errorf("ROS 2 bridge %s: %w (build it with %s)", named, err, BridgeBuildHint)
			}
			return named, nil
		}
		p, err := exec.LookPath(named)
		if err != nil {
			return "", fmt.Errorf("ROS 2 bridge %q: %w (build it with %s)", named, err, BridgeBuildHint)
		}
		return p, nil
	}
	beside := ""
	if exe, err := os.Executable(); err == nil {
		beside = filepath.Join(filepath.Dir(exe), BridgeName)
		if executableFile(beside) == nil {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(BridgeName); err == nil {
		return p, nil
	}
	where := "beside this executable"
	if beside != "" {
		where = "at " + beside
	}
	return "", fmt.Errorf("ROS 2 bridge %s not found %s nor on $PATH: build it with %s, or name it with --ros2-bridge or %s",
		BridgeName, where, BridgeBuildHint, BridgeEnv)
}

func executableFile(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return errors.New("not executable")
	}
	return nil
}

// tailWriter keeps the last line written to it (a bridge's last words: the dynamic loader's "error while
// loading shared libraries", or its own refusal).
type tailWriter struct {
	mu   sync.Mutex
	buf  []byte
	last string
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		if l := strings.TrimSpace(string(w.buf[:i])); l != "" {
			w.last = l
		}
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 4096 {
		w.buf = w.buf[len(w.buf)-4096:]
	}
	return len(p), nil
}

func (w *tailWriter) Last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if l := strings.TrimSpace(string(w.buf)); l != "" {
		return l
	}
	return w.last
}
