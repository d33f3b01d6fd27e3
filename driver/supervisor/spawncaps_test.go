package supervisor

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// SpawnCapsEnv makes the test binary the process of TestSpawnerDropsCapabilities (SpawnCapsChild), which
// the test starts as uid 65534 with CAP_SETUID and CAP_SETGID ambient, as systemd's AmbientCapabilities
// starts the service.
const SpawnCapsEnv = "ROSORIN_TEST_SPAWNCAPS"

// SpawnCapsChild prints its own effective capabilities, then those of a child started by the spawner (as the
// driver and the reader are, with the parent-death signal SIGTERM) and of a child forked from an ordinary
// thread (as anything else would be): lines "self HEX", "spawner HEX SIGNAL", "plain HEX". With
// SpawnCapsEnv=report it is that spawner's child: it prints its capabilities and its parent-death signal.
func SpawnCapsChild() int {
	if os.Getenv(SpawnCapsEnv) == "report" {
		var sig int
		unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0, 0, 0)
		fmt.Println("spawner", capEff("/proc/self/status"), sig)
		return 0
	}
	fmt.Println("self", capEff("/proc/self/status"))
	sh := []string{"/bin/sh", "-c", `echo "$0 $(grep CapEff /proc/self/status | cut -f2)"`}
	exe, err := os.Executable()
	if err != nil {
		fmt.Println("executable:", err)
		return 1
	}
	sp := newSpawner()
	pid, err := sp.start([]string{exe}, []string{SpawnCapsEnv + "=report"}, []uintptr{0, 1, 2}, syscall.SIGTERM)
	if err != nil {
		fmt.Println("spawner start:", err)
		return 1
	}
	var ws syscall.WaitStatus
	syscall.Wait4(pid, &ws, 0, nil)
	sp.close()
	pid, err = syscall.ForkExec(sh[0], append(sh[:3:3], "plain"), &syscall.ProcAttr{Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Println("plain start:", err)
		return 1
	}
	syscall.Wait4(pid, &ws, 0, nil)
	return 0
}

func capEff(path string) string {
	b, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "CapEff:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
