//go:build unix

package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock on path (created if missing) and returns its release.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// RealTimeLockEnv, when set, names the file RealTimeAlone locks instead of the machine-wide one: CI's lanes,
// which run real-time packages beside each other on purpose, give each lane its own.
const RealTimeLockEnv = "ROSORIN_REALTIME_LOCK"

// realTimeLock is the file the real-time test packages take in turn (RealTimeAlone).
func realTimeLock() string {
	if p := os.Getenv(RealTimeLockEnv); p != "" {
		return p
	}
	return filepath.Join(os.TempDir(), "rosorin-realtime-tests.lock")
}

// RealTimeAlone is for the TestMain of a package whose tests measure real time (latencies, heartbeat gaps,
// CPU): it waits until no other such package of any checkout runs on this machine, and returns the release.
// So `go test ./...` may build and run the other packages two at a time while the real-time ones run one
// after the other, as CI's part 2 runs them (-p 1). Test helper processes a test binary starts from itself
// must not call it (their parent holds the lock).
//
// A fuzz worker (go test -fuzz starts the test binary again with -test.fuzzworker) takes no lock: its
// coordinator holds it, and a worker that waited for it would wait the whole fuzz time, fuzzing nothing while
// the run reported PASS.
func RealTimeAlone() (release func()) {
	if isFuzzWorker(os.Args) {
		return func() {}
	}
	f, err := os.OpenFile(realTimeLock(), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testkit: %v: running without the real-time lock\n", err)
		return func() {}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		start := time.Now()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			fmt.Fprintf(os.Stderr, "testkit: %v: running without the real-time lock\n", err)
			return func() {}
		}
		fmt.Fprintf(os.Stderr, "testkit: waited %v for another real-time test package (%s)\n", time.Since(start).Round(time.Millisecond), realTimeLock())
	}
	return func() { f.Close() }
}

// isFuzzWorker reports whether args are a fuzz worker's (-test.fuzzworker, as go test passes it).
func isFuzzWorker(args []string) bool {
	for _, a := range args {
		if a == "-test.fuzzworker" || strings.HasPrefix(a, "-test.fuzzworker=") {
			return true
		}
	}
	return false
}
