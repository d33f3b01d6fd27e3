package ros2

import (
	"fmt"
	"sync"
	"time"

	"github.com/rosorin/rosorin/ros2/dds"
)

// estopWatch is the fail-safe behind the e-stop readers. A reliable writer announces what it has written
// (heartbeats carry its last sequence number) before, or without, the samples themselves arriving. A sample
// a writer on estop has announced that has not reached the bridge within repair (normally a retransmission
// takes milliseconds), or that is still missing when the writer leaves the graph, may have been an e-stop:
// the bridge latches in its place, and the reason says why. That covers a one-shot publisher that died
// (killed, crashed, exited without cleaning up) after its heartbeat reached us but before it could repair a
// lost sample, which no reader setting can. And a writer that came and went within oneShot with nothing
// received: a one-shot whose sample outran discovery and that left (cleanly) before its next heartbeat. A
// writer killed before anything of it reached us leaves only when its lease runs out (10 s Cyclone, 20 s
// Fast DDS), past oneShot: not covered. Pure logic over Reader.Progress polls; time comes in as an argument.
type estopWatch struct {
	repair time.Duration
	// oneShot: a writer that leaves this soon after it appeared, with no sample of it received, is taken
	// for a one-shot publisher whose sample was lost (see observe).
	oneShot time.Duration

	mu       sync.Mutex
	writers  map[uint64]*watchedWriter // by publication handle
	received map[uint64]time.Time      // the last sample taken from each writer (received)
}

type watchedWriter struct {
	pending      int64     // announced samples not received, at the last poll
	since        time.Time // when pending became non-zero
	firstSeen    time.Time // the first poll that listed the writer
	observed     time.Time // the last poll that listed the writer
	left         time.Time // when it was first missing from a poll with samples pending
	latchedUpTo  int64     // announced sequence number already latched for (one latch per loss)
	silent       bool      // left within oneShot of appearing with nothing received (at the time it left)
	announced    int64
	seenThisPoll bool
}

// leaveGrace is how long after a writer left with samples pending at the last poll the watch waits for a
// sample from it that was taken after that poll (a poll is a snapshot: the writer's last sample can arrive,
// be acknowledged and the writer leave between two polls).
// 300 ms: the reader goroutine that takes the sample may be starved that long on a loaded 2-core computer
// (a spurious latch), and it only delays the latch for a sample that was really lost.
const leaveGrace = 300 * time.Millisecond

// received notes a sample taken from writer at now (any e-stop reader, any value).
func (w *estopWatch) receivedFrom(writer uint64, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.received == nil {
		w.received = map[uint64]time.Time{}
	}
	w.received[writer] = now
}

// observe takes one poll of the reliable e-stop readers' progress (several readers may list the same
// writer: a sample counts as received when any of them has it) and returns a reason to latch, or "".
func (w *estopWatch) observe(now time.Time, progress []dds.WriterProgress) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writers == nil {
		w.writers = map[uint64]*watchedWriter{}
	}
	merged := map[uint64]dds.WriterProgress{}
	for _, p := range progress {
		if !p.Known {
			continue
		}
		m, ok := merged[p.Writer]
		if !ok {
			merged[p.Writer] = p
			continue
		}
		m.Announced = max(m.Announced, p.Announced)
		m.Next = max(m.Next, p.Next)
		merged[p.Writer] = m
	}
	for _, ww := range w.writers {
		ww.seenThisPoll = false
	}
	reason := ""
	for h, p := range merged {
		ww := w.writers[h]
		if ww == nil {
			ww = &watchedWriter{firstSeen: now}
			w.writers[h] = ww
		}
		ww.seenThisPoll = true
		ww.observed = now
		ww.left = time.Time{}
		ww.announced = p.Announced
		ww.pending = p.Pending()
		switch {
		case ww.pending == 0:
			ww.since = time.Time{}
		case ww.since.IsZero():
			ww.since = now
		}
		if ww.pending > 0 && now.Sub(ww.since) >= w.repair && ww.announced > ww.latchedUpTo {
			ww.latchedUpTo = ww.announced
			reason = fmt.Sprintf("estop topic (ROS 2): a publisher announced %d sample(s) that did not arrive within %v (announced up to #%d, received up to #%d); latched in case one was an e-stop", ww.pending, w.repair, ww.announced, ww.announced-ww.pending)
		}
	}
	for h, ww := range w.writers {
		if ww.seenThisPoll {
			continue
		}
		got, anything := w.received[h]
		// A writer that came and went within oneShot and of which nothing arrived: a one-shot publisher
		// (ros2 topic pub --once) whose sample outran discovery. It reached this host before this side had
		// processed the writer's announcement, so it was dropped, and the writer left before it repaired
		// it (a Fast DDS writer repairs at its next heartbeat, 3 s by default, and does not linger for
		// acknowledgements when deleted). Whether it wrote, and what, is unknown: latch. A long-lived writer
		// that never wrote (an idle teleop's e-stop button) leaves without latching.
		silentOneShot := !anything && ww.left.IsZero() && now.Sub(ww.firstSeen) <= w.oneShot
		holeLeft := ww.pending > 0 && ww.announced > ww.latchedUpTo && !got.After(ww.observed)
		if !silentOneShot && !holeLeft && ww.left.IsZero() {
			delete(w.writers, h)
			delete(w.received, h)
			continue
		}
		if ww.left.IsZero() {
			ww.left = now
			ww.silent = silentOneShot
		}
		if now.Sub(ww.left) < leaveGrace {
			continue
		}
		delete(w.writers, h)
		delete(w.received, h)
		switch {
		case ww.silent && !anything:
			reason = fmt.Sprintf("estop topic (ROS 2): a publisher came and went within %.2f s and none of its samples reached the driver (a one-shot e-stop lost before discovery completed?); latched in case it was an e-stop", ww.left.Sub(ww.firstSeen).Seconds())
		case ww.pending > 0 && ww.announced > ww.latchedUpTo && !got.After(ww.observed):
			reason = fmt.Sprintf("estop topic (ROS 2): a publisher left the graph with %d announced sample(s) that never arrived (announced up to #%d, received up to #%d); latched in case one was an e-stop", ww.pending, ww.announced, ww.announced-ww.pending)
		}
	}
	return reason
}

// checkEStopWriters polls the e-stop readers (publisherLoop's tick) and returns a reason to latch,
// or "".
func (b *Bridge) checkEStopWriters(now time.Time) string {
	var progress []dds.WriterProgress
	for i, r := range b.estopReaders {
		var err error
		if estopQoS[i].Reliable {
			progress, err = r.Progress(progress)
		} else {
			// A best-effort match has no reliable-protocol state to judge: only its coming and going.
			var hs []uint64
			hs, err = r.MatchedWriters(nil)
			for _, h := range hs {
				progress = append(progress, dds.WriterProgress{Writer: h, Next: 1, Known: true})
			}
		}
		if err != nil {
			return "" // a closed reader at shutdown; a failing one is logged by its read loop
		}
	}
	return b.watch.observe(now, progress)
}
