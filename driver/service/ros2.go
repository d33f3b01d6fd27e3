package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// Bridge restarts: a bridge that ran at least bridgeHealthy is restarted after bridgeRetry; one that could
// not start or ended sooner has failed, and the pause doubles up to bridgeMaxRetry. (Variables for the tests.)
var (
	bridgeRetry    = time.Second
	bridgeMaxRetry = 30 * time.Second
	bridgeHealthy  = 5 * time.Second
)

// bridgeState is what the service knows of its bridge child, for the supervisor's status file (Status.Bridge:
// `rosorin-base state`, supervisor-status, the bridge's own /diagnostics after a restart).
type bridgeState struct {
	mu sync.Mutex
	st supervisor.BridgeStatus
}

func (b *bridgeState) update(f func(*supervisor.BridgeStatus)) {
	b.mu.Lock()
	f(&b.st)
	b.mu.Unlock()
}

func (b *bridgeState) snapshot() *supervisor.BridgeStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.st
	return &st
}

// startBridge runs the ROS 2 bridge (the binary rosorin-ros2, FindBridge) as a child of the service until ctx
// ends, restarting it after it exits. It is a client of the driver's socket like any other: libddsc is loaded
// in that child only, never in the supervisor or the driver child, so neither a crash there nor a DDS library
// that is missing or broken touches the stop path (a dead bridge closes its cmd_vel stream; the driver's
// deadman stops the wheels). A bridge that cannot start (not found, not loadable, built without the tag, a
// --ros2-user the service may not switch to) is logged as failed at ERROR once, with its last words, and
// retried with back-off while the driver runs on. The returned functions wait for it to end and report it.
func startBridge(ctx context.Context, o Options, log *slog.Logger, feed *bridgeLog) (wait func(), status func() *supervisor.BridgeStatus) {
	done := make(chan struct{})
	state := &bridgeState{}
	state.st.User = o.ROS2User
	go func() {
		// One thread for every start of the bridge, locked for good: the bridge's parent-death signal follows
		// the thread that forked it (golang/go#27505), and this thread's ambient capabilities are cleared so
		// the bridge execs without the CAP_SETUID the service may hold for --ros2-user (childproc).
		runtime.LockOSThread()
		defer close(done)
		if err := childproc.ClearThreadAmbient(); err != nil {
			log.Error("ROS 2 bridge: clearing the ambient capabilities failed; the bridge may inherit them", "err", err)
		}
		retry, failures := bridgeRetry, 0
		failed := func(msg string, args ...any) {
			failures++
			args = append(args, "failures", failures, "retry_in", retry)
			words := msg
			for i := 0; i+1 < len(args); i += 2 {
				if k, _ := args[i].(string); k == "err" || k == "last_words" {
					words += fmt.Sprintf("; %s: %v", k, args[i+1])
				}
			}
			state.update(func(b *supervisor.BridgeStatus) { b.Failures, b.LastError = failures, words })
			if failures == 1 {
				log.Error("ROS 2 bridge failed: "+msg+"; the driver runs on without the ROS 2 graph", args...)
			} else {
				log.Debug("ROS 2 bridge failed again: "+msg, args...)
			}
		}
		for starts := 1; ctx.Err() == nil; starts++ {
			ran := runBridge(ctx, o, log, feed, starts, failures, failed, state)
			if ctx.Err() != nil {
				return
			}
			if ran {
				retry, failures = bridgeRetry, 0
			}
			select {
			case <-ctx.Done():
			case <-o.clk().After(retry):
			}
			if !ran {
				retry = min(2*retry, bridgeMaxRetry)
			}
		}
	}()
	return func() { <-done }, state.snapshot
}

// bridgeCredential returns the credentials of --ros2-user (nil: the service's own): the user's uid, its
// primary group and every group it is a member of (the control socket's group, rosorin-drive: deploy/).
func bridgeCredential(name string) (*syscall.Credential, error) {
	if name == "" {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		if _, aerr := strconv.Atoi(name); aerr == nil {
			u, err = user.LookupId(name)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--ros2-user %s: %w", name, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--ros2-user %s: uid %q gid %q are not numbers", name, u.Uid, u.Gid)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	ids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("--ros2-user %s: its groups: %w", name, err)
	}
	for _, g := range ids {
		if n, err := strconv.ParseUint(g, 10, 32); err == nil && n != gid {
			cred.Groups = append(cred.Groups, uint32(n))
		}
	}
	return cred, nil
}

// runBridge starts the bridge once and waits for it (or for ctx, then ends it). It reports whether the bridge
// ran for bridgeHealthy; failed is called when it did not.
func runBridge(ctx context.Context, o Options, log *slog.Logger, feed *bridgeLog, starts, failures int, failed func(string, ...any), state *bridgeState) (ran bool) {
	exe, err := FindBridge(o.ROS2Bridge)
	if err != nil {
		failed("not found", "err", err)
		return false
	}
	cred, err := bridgeCredential(o.ROS2User)
	if err != nil {
		failed("its user", "err", err)
		return false
	}
	tail := &tailWriter{}
	cmd := exec.Command(exe, append([]string{"--socket", o.Socket}, o.BridgeArgs...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, io.MultiWriter(os.Stderr, tail)
	cmd.SysProcAttr = bridgeProcAttr(cred)
	attach := feed.prepare(cmd) // the supervisor's log lines on fd 3, for /rosout (ros2log.go)
	err = cmd.Start()
	attach(err == nil)
	if err != nil {
		if cred != nil && errors.Is(err, syscall.EPERM) {
			err = fmt.Errorf("%w: the service may not switch to --ros2-user %s; give it CAP_SETUID and CAP_SETGID (deploy/ros2.conf: AmbientCapabilities)", err, o.ROS2User)
		}
		failed("did not start", "bridge", exe, "err", err)
		return false
	}
	pid := cmd.Process.Pid
	state.update(func(b *supervisor.BridgeStatus) {
		b.Running, b.Healthy, b.PID, b.Since, b.Starts = true, false, pid, o.clk().Now(), starts
	})
	defer state.update(func(b *supervisor.BridgeStatus) { b.Running, b.Healthy, b.PID = false, false, 0 })
	log.Info("ROS 2 bridge started", "bridge", exe, "pid", pid, "starts", starts, "user", o.ROS2User)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	healthy := o.clk().After(bridgeHealthy) // fires once: the bridge ran long enough to count as healthy
	for {
		select {
		case <-healthy:
			ran = true
			state.update(func(b *supervisor.BridgeStatus) { b.Healthy, b.Failures, b.LastError = true, 0, "" })
			if failures > 0 {
				log.Info("ROS 2 bridge running again", "pid", pid, "after_failures", failures)
			}
		case err := <-exited:
			how := "exit status 0"
			if err != nil {
				how = err.Error()
			}
			state.update(func(b *supervisor.BridgeStatus) { b.LastExit = fmt.Sprintf("pid %d: %s", pid, how) })
			disableAfterBridge(o.Socket, log, ran)
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
			case <-o.clk().After(3 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
			return true
		}
	}
}

// disableAfterBridge disables motion when a bridge that ran has exited: the graph's publishers keep
// publishing, and the next bridge would forward their commands to an enabled driver, moving the wheels with no
// deliberate act (issue 34's finding; docs/safety-case.md, "No motion without a deliberate act"). The deadman
// has already stopped them 0.3 s after the bridge's last command; this keeps them still until an enable. A
// failed call is logged: the driver is then gone or stuck, and its own stops apply.
//
// ran says the bridge ran long enough to count as healthy; one that failed at start (its failure is logged
// once by the caller, and again at debug level while it keeps failing) gets its disable logged at debug level
// too, so a bridge that cannot start does not fill the log.
func disableAfterBridge(socket string, log *slog.Logger, ran bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := api.NewClient(socket).Enable(ctx, false); err != nil {
		if ran {
			log.Error("ROS 2 bridge exited and motion could NOT be disabled: the next bridge may move the wheels without an enable", "err", err)
		} else {
			log.Debug("ROS 2 bridge exited at start; disabling motion failed", "err", err)
		}
		return
	}
	if ran {
		log.Warn("ROS 2 bridge exited: motion disabled until a deliberate enable (the graph's publishers may still be publishing)")
	} else {
		log.Debug("ROS 2 bridge exited at start: motion disabled until a deliberate enable")
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
