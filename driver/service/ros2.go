package service

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/ros2/dds"
)

// startBridge runs `rosorin-base ros2` (the ROS 2 node, package ros2) as a child of the service until ctx
// ends, restarting it a second after it exits. It is a client of the driver's socket like any other: the
// cgo and DDS code runs in this child only, never in the supervisor or the driver child, so a crash there
// never touches the stop path (a dead bridge closes its cmd_vel stream; the driver's deadman stops the
// wheels). The returned function waits for it to end.
func startBridge(ctx context.Context, o Options, log *slog.Logger, feed *bridgeLog) (wait func(), err error) {
	if !dds.Available() {
		return nil, dds.ErrNotBuilt
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"ros2", "--socket", o.Socket}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for starts := 1; ctx.Err() == nil; starts++ {
			cmd := exec.Command(exe, args...)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			cmd.SysProcAttr = bridgeProcAttr()
			attach := feed.prepare(cmd)
			err := cmd.Start()
			attach(err == nil)
			if err != nil {
				log.Error("ROS 2 bridge did not start", "err", err)
			} else {
				log.Info("ROS 2 bridge started", "pid", cmd.Process.Pid, "starts", starts)
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				select {
				case err := <-exited:
					log.Warn("ROS 2 bridge exited; restarting in 1 s", "err", err)
				case <-ctx.Done():
					cmd.Process.Signal(syscall.SIGTERM)
					select {
					case <-exited:
					case <-time.After(3 * time.Second):
						cmd.Process.Kill()
						<-exited
					}
					return
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	return func() { <-done }, nil
}
