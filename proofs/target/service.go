package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"syscall"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/stoplog"
)

// ServiceKiller is implemented by targets that can SIGKILL the service's supervisor itself (the simulator's
// child process): the crash of the whole service, after which the driver child halts the board output on its
// parent-death signal. StartService brings the service back.
type ServiceKiller interface {
	// KillService sends SIGKILL to the supervisor and waits for it to be gone; it returns its pid.
	KillService(ctx context.Context) (int, error)
}

// StopLogReader is implemented by targets whose driver's stop log (driver/stoplog, in its state directory)
// the tools can read: the simulator's, in its temporary folder. On a robot: `rosorin-base stops --json`.
type StopLogReader interface {
	// StopRecords reads the stop log as it is on disk now; bad records are named in the error (the good
	// ones are returned all the same).
	StopRecords(ctx context.Context) ([]api.StopRecord, error)
}

// StopsAcker is implemented by targets through whose control API a person acknowledges the stop monitor's
// ERROR (POST /v1/stops/ack: the safety role), ending its hold on enable.
type StopsAcker interface {
	AckStops(ctx context.Context) error
}

var (
	_ ServiceKiller = (*SimTarget)(nil)
	_ StopLogReader = (*SimTarget)(nil)
	_ StopsAcker    = (*LiveTarget)(nil)
)

// AckStops acknowledges the stop monitor's ERROR through the control API.
func (l *LiveTarget) AckStops(ctx context.Context) error {
	r, err := l.c.StopsAck(ctx)
	return replyErr("stops ack", r, err)
}

// StopMonitor is the stop monitor's part of a state record (nil when the driver reports none).
func StopMonitor(st State) *api.StopMonitor {
	var x struct {
		M *api.StopMonitor `json:"stop_monitor"`
	}
	if json.Unmarshal(st.Raw, &x) != nil {
		return nil
	}
	return x.M
}

// KillService SIGKILLs the supervisor of rosorin-base run (only it: its driver child must halt the board on
// its own parent-death signal) and waits for it to exit.
func (s *SimTarget) KillService(ctx context.Context) (int, error) {
	s.mu.Lock()
	base := s.base
	s.base = nil
	s.mu.Unlock()
	if base == nil || base.Cmd == nil || base.Cmd.Process == nil {
		return 0, errors.New("the service is not running")
	}
	pid := base.Cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return pid, fmt.Errorf("SIGKILL of the supervisor (pid %d): %w", pid, err)
	}
	select {
	case <-base.Done():
	case <-ctx.Done():
		return pid, ctx.Err()
	}
	return pid, nil
}

// StateDir is the service's state directory (the latch file, the stop log in stops/): it goes with the
// temporary folder at Close.
func (s *SimTarget) StateDir() string { return s.robot.Service.StateDir }

// StopRecords reads the driver's stop log from the service's state directory.
func (s *SimTarget) StopRecords(ctx context.Context) ([]api.StopRecord, error) {
	recs, rec, err := stoplog.Read(s.robot.Service.StateDir)
	if err != nil {
		return nil, err
	}
	return recs, rec.Err()
}
