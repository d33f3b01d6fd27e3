package driver

// The two-publisher rule: velocity commands from more than one sender at a time on one input trip the e-stop
// ("multiple cmd_vel publishers"; "multiple manual/cmd_vel publishers" on manual), because two programs
// steering one robot at once is a collision waiting for its turn. Senders on different inputs are arbitrated
// by priority instead (motion.Gate.Winner). Each input is counted on its own, as below.
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
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
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

// pubKey is one sender on one input: a process that sends on two inputs is a publisher on each.
type pubKey struct {
	pid int
	in  motion.Input
}

// notePublisher records a command on input in at at (zero: none; oneShot: not over a stream) and a change of
// open streams by dStreams.
func (r *loopState) notePublisher(p api.Peer, in motion.Input, at time.Time, oneShot bool, dStreams int) {
	k := pubKey{p.PID, in}
	pi := r.pubs[k]
	if pi == nil {
		pi = &pubInfo{peer: p}
		r.pubs[k] = pi
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

// publisherCounts returns how many publishers each input has now (the rule above) and forgets senders that
// no longer count. Process liveness is only looked up when an input has two or more candidates.
func (r *loopState) publisherCounts(now time.Time) (n [motion.NumInputs]int) {
	for k, pi := range r.pubs {
		switch {
		case pi.streams > 0, pi.hasShot && now.Sub(pi.oneShot) <= PublisherWindow:
			n[k.in]++
		default:
			delete(r.pubs, k)
		}
	}
	for in, c := range n {
		if c >= 2 {
			n[in] = r.publisherCount(now, motion.Input(in))
		}
	}
	return n
}

// publisherCount applies the grouping rule to the candidates on input in.
func (r *loopState) publisherCount(now time.Time, in motion.Input) int {
	pubs := map[int]*pubInfo{}
	for k, pi := range r.pubs {
		if k.in == in {
			pubs[k.pid] = pi
		}
	}
	type key struct {
		kind byte // 's' stream, 'p' running one-shot sender, 'g' parent of exited one-shot senders
		pid  int
	}
	keys := map[key]bool{}
	alive := map[int]bool{}
	exitedParents := map[int]bool{}
	for pid, pi := range pubs {
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
		pp := pubs[pid].peer.PPID
		switch {
		case !on || (pp > 0 && exitedParents[pp]):
			keys[key{'g', pp}] = true
		case pubs[pid].streams == 0:
			keys[key{'p', pid}] = true
		}
	}
	return len(keys)
}

func (r *loopState) publisherList(now time.Time) []api.Publisher {
	out := make([]api.Publisher, 0, len(r.pubs))
	for k, pi := range r.pubs {
		p := api.Publisher{PID: pi.peer.PID, Comm: pi.peer.Comm, Input: k.in.String(), Streams: pi.streams}
		if pi.hasCmd {
			a := round3(now.Sub(pi.last).Seconds())
			p.LastCmdAgeS = &a
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b api.Publisher) int {
		if a.PID != b.PID {
			return a.PID - b.PID
		}
		return strings.Compare(a.Input, b.Input)
	})
	return out
}
