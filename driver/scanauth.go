package driver

import (
	"fmt"
	"os"

	"github.com/rosorin/rosorin/driver/api"
)

// Who may feed the scan gate.
//
// The scan gate lets software commands move the wheels only while LiDAR scans arrive. Scans come in over the
// control socket, which every member of the service's group may use; if any of them could stream scans, one
// of them could drive a robot whose LiDAR is dead (and, as the state record named whoever streamed as the
// reader, the live scan-loss proofs would SIGKILL that process instead of the reader). So a driver that runs
// under the supervisor takes scans only from the supervisor's LiDAR reader child: the kernel's SO_PEERCRED
// pid of the connection, its parent from /proc/PID/stat (the supervisor's pid), and its name from
// /proc/PID/comm (api.ReaderComm, which `rosorin-base lidar-reader` sets), and its uid (SO_PEERCRED: the
// service's own, the driver's). The name alone is anyone's to take; the parent is not: only the supervisor
// can have children of its own; and the uid keeps out the supervisor's other children that run under their
// own user (the ROS 2 bridge in the deployment, deploy/README.md), whatever name they give themselves.
// Without a supervisor (SupervisorPID 0: tests, a driver run by hand) anyone may send scans.

var _ api.ScanAuthorizer = (*loopState)(nil)

// scanSender returns nil when p may send scans to a driver whose supervisor is supervisorPID (0: none) and
// whose own uid is uid, or the reason it may not.
func scanSender(p api.Peer, supervisorPID, uid int) error {
	if supervisorPID <= 0 {
		return nil
	}
	switch {
	case p.PID <= 0:
		return fmt.Errorf("scans refused from %s: its credentials are unknown; only the LiDAR reader of rosorin-base run (pid %d) may feed the scan gate",
			p, supervisorPID)
	case p.UID != uid:
		return fmt.Errorf("scans refused from %s: uid %d, not the service's user (uid %d); only the LiDAR reader that rosorin-base run starts may feed the scan gate",
			p, p.UID, uid)
	case p.PPID != supervisorPID:
		return fmt.Errorf("scans refused from %s: its parent is pid %d, not the supervisor (pid %d); only the LiDAR reader that rosorin-base run starts may feed the scan gate",
			p, p.PPID, supervisorPID)
	case p.Comm != api.ReaderComm:
		return fmt.Errorf("scans refused from %s: a child of the supervisor but not its LiDAR reader (%q); only the reader may feed the scan gate",
			p, api.ReaderComm)
	}
	return nil
}

// AuthorizeScan implements api.ScanAuthorizer (called from transport goroutines; reads only immutable
// options).
func (r *loopState) AuthorizeScan(p api.Peer) error {
	err := scanSender(p, r.o.SupervisorPID, os.Getuid())
	if err != nil {
		if n := r.scanRefusals.Add(1); n == 1 || n%100 == 0 {
			r.log.Warn(err.Error(), "count", n)
		}
	}
	return err
}
