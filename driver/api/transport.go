package api

import (
	"fmt"

	"github.com/rosorin/rosorin/driver/motion"
)

// Peer identifies who sent a request: for the unix socket, the kernel's SO_PEERCRED of the connection (pid,
// uid, gid at connect time) and the process name. A ROS 2 transport would fill PID from the publisher's
// participant (or leave it 0 and set Name to the publisher's GID).
type Peer struct {
	PID  int    `json:"pid"`
	UID  int    `json:"uid"`
	GID  int    `json:"gid"`
	Comm string `json:"comm"`
	// PPID is the parent of PID at connect time: one-shot senders that exit at once (curl in a shell loop)
	// are grouped by it, see the two-publisher rule in doc.go.
	PPID int `json:"ppid"`
	// Conn numbers the connection (unique per server) so logs can tell two connections of one process apart.
	Conn uint64 `json:"conn"`
	// Roles are what the connection may do (access.go), from its credentials and the server's Access.
	Roles Role `json:"-"`
	// credKnown: the kernel gave the connection's credentials (SO_PEERCRED).
	credKnown bool
}

func (p Peer) String() string {
	if p.Comm != "" {
		return fmt.Sprintf("pid %d (%s)", p.PID, p.Comm)
	}
	return fmt.Sprintf("pid %d", p.PID)
}

// Handler is what a transport delivers commands to: the driver. Every method is safe for concurrent use and
// returns promptly (the driver hands the request to its control loop over a channel and waits briefly for the
// answer). Transports validate syntax; the driver validates meaning (the gate refuses absurd values whatever
// the transport).
type Handler interface {
	// CmdVel delivers one velocity command from p on input in (arbitrated by priority, motion.Gate.Winner);
	// stream tells whether it came over a long-lived stream (a publisher while the stream is open) or as a
	// one-shot request. A non-nil error means the gate refused it (non-finite or absurd): the wheels were
	// stopped and it was counted.
	CmdVel(p Peer, in motion.Input, t Twist, stream bool) (CmdReply, error)
	// BadCommand reports a velocity command on input in that could not even be parsed (bad JSON): the driver
	// stops the wheels and counts it, so a broken sender never leaves them turning on its last good command.
	BadCommand(p Peer, in motion.Input, why string)
	// CmdStream reports a long-lived velocity command stream on input in opening (open = true) or closing. An
	// open stream counts as a publisher on its input for the two-publisher rule for as long as it is open.
	CmdStream(p Peer, in motion.Input, open bool)
	// EStop latches the e-stop (std_msgs/Bool true on the seed's estop topic). reason may be empty.
	EStop(p Peer, reason string) Reply
	// Enable turns motion on or off (the seed's ~/enable SetBool).
	Enable(p Peer, on bool) Reply
	// Reset clears the e-stop latch; motion stays disabled (the seed's ~/reset_estop).
	Reset(p Peer) Reply
	// Scan delivers one validated LiDAR scan from p at its arrival; the driver feeds the scan gate and
	// publishes it. stream tells whether it came over a long-lived ingestion stream (p is then the reader).
	Scan(p Peer, s *Scan, stream bool)
	// ScanStream reports a scan ingestion stream opening or closing (the reader process's connection).
	ScanStream(p Peer, open bool)
	// State returns a fresh state record.
	State() (State, error)
	// Config returns the configuration in use, for GET /v1/config.
	Config() any
}

// ScanAuthorizer is an optional ability of a Handler, found by type assertion: it decides who may feed the
// scan gate. A transport asks it once per scan request or stream, before anything reaches Scan or
// ScanStream, and refuses the sender when it returns an error (the unix-socket Server answers 403 with the
// error's text and counts it). A Handler without it takes scans from anyone.
//
// Why: the scan gate lets software commands move the wheels only while LiDAR scans arrive. A client that
// could stream made-up scans would drive a robot whose LiDAR is dead.
type ScanAuthorizer interface {
	AuthorizeScan(p Peer) error
}

// ReaderComm is the process name (PR_SET_NAME, /proc/PID/comm) of the LiDAR reader child that
// `rosorin-base run` starts; a driver under a supervisor takes scans only from its supervisor's child of
// this name.
const ReaderComm = "rosorin-lidar"

// Transport carries the driver's output streams to clients. Publish never blocks and never fails: a
// subscriber that cannot keep up loses messages, which are counted. msg must not be changed after Publish
// (transports may encode it later, from another goroutine).
//
// The unix-socket Server is the default transport; a ROS 2 (DDS) transport implements the same two
// interfaces (Transport out, Handler in) and plugs in without touching the gate.
type Transport interface {
	Publish(topic string, msg any)
	// Stats returns the transport's counters for the state record.
	Stats() TransportStats
	// Close stops serving and waits for its goroutines.
	Close() error
}

// TransportStats are a transport's counters.
type TransportStats struct {
	BadRequests uint64 // refused requests of any kind
	Throttled   uint64 // of which 429 (rate limit)
	Dropped     uint64 // stream messages not delivered to slow subscribers
	Subscribers int    // open output streams now
	// RefusedScans counts scan requests (streams and one-shots) refused with 403 because the sender may not
	// feed the scan gate (ScanAuthorizer); they are in BadRequests too.
	RefusedScans uint64
	// RefusedRoles counts requests refused with 403 because the connection lacked the role (access.go);
	// they are in BadRequests too.
	RefusedRoles uint64
}
