package service

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Bridge restarts: a bridge that ran at least bridgeHealthy is restarted after bridgeRetry; one that could
// not start or ended sooner has failed, and the pause doubles up to bridgeMaxRetry. (Variables for the tests.)
var (
	bridgeRetry    = time.Second
	bridgeMaxRetry = 30 * time.Second
	bridgeHealthy  = 5 * time.Second
)

// startBridge runs the ROS 2 bridge (the binary rosorin-ros2, FindBridge) as a child of the service until ctx
// ends, restarting it after it exits. It is a client of the driver's socket like any other: libddsc is loaded
// in that child only, never in the supervisor or the driver child, so neither a crash there nor a DDS library
// that is missing or broken touches the stop path (a dead bridge closes its cmd_vel stream; the driver's
// deadman stops the wheels). A bridge that cannot start (not found, not loadable, built without the tag) is
// logged as failed at ERROR once, with its last words, and retried with back-off while the driver runs on.
// The returned function waits for it to end.
func startBridge(ctx context.Context, o Options, log *slog.Logger, feed *bridgeLog) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		retry, failures := bridgeRetry, 0
		failed := func(msg string, args ...any) {
			failures++
			args = append(args, "failures", failures, "retry_in", retry)
			if failures == 1 {
				log.Error("ROS 2 bridge failed: "+msg+"; the driver runs on without the ROS 2 graph", args...)
			} else {
				log.Debug("ROS 2 bridge failed again: "+msg, args...)
			}
		}
		for starts := 1; ctx.Err() == nil; starts++ {
			ran := runBridge(ctx, o, log, feed, starts, failures, failed)
			if ctx.Err() != nil {
				return
			}
			if ran {
				retry, failures = bridgeRetry, 0
			}
			select {
			case <-ctx.Done():
			case <-time.After(retry):
			}
			if !ran {
				retry = min(2*retry, bridgeMaxRetry)
			}
		}
	}()
	return func() { <-done }
}

// runBridge starts the bridge once and waits for it (or for ctx, then ends it). It reports whether the bridge
// ran for bridgeHealthy; failed is called when it did not.
func runBridge(ctx context.Context, o Options, log *slog.Logger, feed *bridgeLog, starts, failures int, failed func(string, ...any)) (ran bool) {
	exe, err := FindBridge(o.ROS2Bridge)
	if err != nil {
		failed("not found", "err", err)
		return false
	}
	tail := &tailWriter{}
	cmd := exec.Command(exe, append([]string{"--socket", o.Socket}, o.BridgeArgs...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, io.MultiWriter(os.Stderr, tail)
	cmd.SysProcAttr = bridgeProcAttr()
	attach := feed.prepare(cmd) // the supervisor's log lines on fd 3, for /rosout (ros2log.go)
	err = cmd.Start()
	attach(err == nil)
	if err != nil {
		failed("did not start", "bridge", exe, "err", err)
		return false
	}
	log.Info("ROS 2 bridge started", "bridge", exe, "pid", cmd.Process.Pid, "starts", starts)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	healthy := time.NewTimer(bridgeHealthy)
	defer healthy.Stop()
	for {
		select {
		case <-healthy.C:
			ran = true
			if failures > 0 {
				log.Info("ROS 2 bridge running again", "pid", cmd.Process.Pid, "after_failures", failures)
			}
		case err := <-exited:
			if ran {
				log.Warn("ROS 2 bridge exited; restarting in 1 s", "err", err)
				return true
			}
			if err == nil {
				err = errors.New("exit status 0")
			}
			failed("exited at start", "bridge", exe, "err", err, "last_words", clip(tail.Last(), 300))
			return false
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(3 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
			return true
		}
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
