package driver

// The two-publisher rule: velocity commands from more than one sender at a time trip the e-stop ("multiple
// cmd_vel publishers"), because two programs steering one robot at once is a collision waiting for its turn.
//
// Every sender is identified by the kernel's SO_PEERCRED pid (and its parent pid) of its connection. At every
// tick the driver counts as publishers:
//   - each pid holding an open cmd_vel stream (a closed stream is a publisher gone, as in the ROS graph);
//   - each pid that sent a one-shot command within PublisherWindow and is still running;
//   - each parent of pids that sent a one-shot command within PublisherWindow and have exited, together with
//     its still-running children that did the same.
//
// The grouping by parent is this driver's change to "distinct pids within the last second": `curl` in a shell
// loop is a new process per command, so ten commands a second from one loop would otherwise be ten
// publishers, while one loop is one publisher. Two programs, two loops in two shells, or a loop and an open
// stream trip at the next tick. Missed by design: two one-shot senders that share a parent and exit at once
// (two cron jobs under the same daemon).

import (
	"slices"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// pubInfo is one velocity command sender (by SO_PEERCRED pid).
type pubInfo struct {
	peer    api.Peer
	oneShot time.Time // last one-shot command (commands over a stream do not count here)
	hasShot bool
	streams int
	last    time.Time // last command of any kind, for the state record
	hasCmd  bool
}

// PublisherWindow: a sender of one-shot commands counts as a publisher this long after its last command.
const PublisherWindow = time.Second

// notePublisher records a command at at (zero: none; oneShot: not over a stream) and a change of open
// streams by dStreams.
func (r *loopState) notePublisher(p api.Peer, at time.Time, oneShot bool, dStreams int) {
	pi := r.pubs[p.PID]
	if pi == nil {
		pi = &pubInfo{peer: p}
		r.pubs[p.PID] = pi
	}
	if !at.IsZero() {
		pi.last, pi.hasCmd = at, true
		if oneShot {
			pi.oneShot, pi.hasShot = at, true
		}
	}
	pi.streams += dStreams
	if pi.streams < 0 {
		pi.streams = 0
	}
}

// publisherCount returns how many publishers there are now (the rule above) and forgets
// senders that no longer count. Process liveness is only looked up when there are two or more candidates.
func (r *loopState) publisherCount(now time.Time) int {
	n := 0
	for pid, pi := range r.pubs {
		switch {
		case pi.streams > 0, pi.hasShot && now.Sub(pi.oneShot) <= PublisherWindow:
			n++
		default:
			delete(r.pubs, pid)
		}
	}
	if n < 2 {
		return n
	}
	type key struct {
		kind byte // 's' stream, 'p' running one-shot sender, 'g' parent of exited one-shot senders
		pid  int
	}
	keys := map[key]bool{}
	alive := map[int]bool{}
	exitedParents := map[int]bool{}
	for pid, pi := range r.pubs {
		if pi.streams > 0 {
			keys[key{'s', pid}] = true
		}
		if !pi.hasShot || now.Sub(pi.oneShot) > PublisherWindow {
			continue
		}
		alive[pid] = api.ProcessAlive(pid)
		if !alive[pid] {
			exitedParents[pi.peer.PPID] = true
		}
	}
	for pid, on := range alive {
		pp := r.pubs[pid].peer.PPID
		switch {
		case !on || (pp > 0 && exitedParents[pp]):
			keys[key{'g', pp}] = true
		case r.pubs[pid].streams == 0:
			keys[key{'p', pid}] = true
		}
	}
	return len(keys)
}

func (r *loopState) publisherList(now time.Time) []api.Publisher {
	out := make([]api.Publisher, 0, len(r.pubs))
	for _, pi := range r.pubs {
		p := api.Publisher{PID: pi.peer.PID, Comm: pi.peer.Comm, Streams: pi.streams}
		if pi.hasCmd {
			a := round3(now.Sub(pi.last).Seconds())
			p.LastCmdAgeS = &a
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b api.Publisher) int { return a.PID - b.PID })
	return out
}
