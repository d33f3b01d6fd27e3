package ros2

import (
	"fmt"
	"time"

	"github.com/rosorin/rosorin/ros2/dds"
)

// estopWatch is the fail-safe behind the e-stop readers. A reliable writer announces what it has written
// (heartbeats carry its last sequence number) before, or without, the samples themselves arriving. A sample
// a writer on estop has announced that has not reached the bridge within repair (normally a retransmission
// takes milliseconds), or that is still missing when the writer leaves the graph, may have been an e-stop:
// the bridge latches in its place, and the reason says why. That covers a one-shot publisher that died
// (killed, crashed, exited without cleaning up) before it could repair a lost sample, which no reader
// setting can. Pure logic over Reader.Progress polls; time comes in as an argument.
type estopWatch struct {
	repair  time.Duration
	writers map[uint64]*watchedWriter // by publication handle
}

type watchedWriter struct {
	pending      int64     // announced samples not received, at the last poll
	since        time.Time // when pending became non-zero
	latchedUpTo  int64     // announced sequence number already latched for (one latch per loss)
	announced    int64
	seenThisPoll bool
}

// observe takes one poll of the reliable e-stop readers' progress (several readers may list the same
// writer: a sample counts as received when any of them has it) and returns a reason to latch, or "".
func (w *estopWatch) observe(now time.Time, progress []dds.WriterProgress) string {
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
			ww = &watchedWriter{}
			w.writers[h] = ww
		}
		ww.seenThisPoll = true
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
			reason = fmt.Sprintf("estop topic (ROS 2): a publisher announced %d sample(s) that did not arrive within %v; latched in case one was an e-stop", ww.pending, w.repair)
		}
	}
	for h, ww := range w.writers {
		if ww.seenThisPoll {
			continue
		}
		delete(w.writers, h)
		if ww.pending > 0 && ww.announced > ww.latchedUpTo {
			reason = fmt.Sprintf("estop topic (ROS 2): a publisher left the graph with %d announced sample(s) that never arrived; latched in case one was an e-stop", ww.pending)
		}
	}
	return reason
}

// checkEStopWriters polls the reliable e-stop readers (publisherLoop's tick) and returns a reason to latch,
// or "".
func (b *Bridge) checkEStopWriters(now time.Time) string {
	var progress []dds.WriterProgress
	for i, r := range b.estopReaders {
		if !estopQoS[i].Reliable {
			continue
		}
		var err error
		if progress, err = r.Progress(progress); err != nil {
			return "" // a closed reader at shutdown; a failing one is logged by its read loop
		}
	}
	return b.watch.observe(now, progress)
}
