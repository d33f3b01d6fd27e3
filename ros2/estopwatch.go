package ros2

import (
	"errors"
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

// progressReader is what the watch needs of an e-stop reader (*dds.Reader).
type progressReader interface {
	Progress(dst []dds.WriterProgress) ([]dds.WriterProgress, error)
	MatchedWriters(dst []uint64) ([]uint64, error)
}

var _ progressReader = (*dds.Reader)(nil)

// pollEStopWriters reads every e-stop reader's matched writers: the reliable-protocol state of the reliable
// ones (Progress), the handles alone of the best-effort one and of every reader when internalsOff (Cyclone's
// internals not the ones this binary was built against: dds.Internals). A reader that cannot be read, or a
// writer whose state cannot be read, is an error in the result, never skipped in silence; the poll goes on
// with the rest, and a writer whose state is unknown is still listed (announcing nothing), so that its coming
// and going is judged as a best-effort writer's is.
func pollEStopWriters(readers []progressReader, reliable []bool, internalsOff bool) ([]dds.WriterProgress, error) {
	var progress []dds.WriterProgress
	var errs []error
	for i, r := range readers {
		if reliable[i] && !internalsOff {
			n := len(progress)
			var err error
			progress, err = r.Progress(progress)
			if err != nil {
				errs = append(errs, fmt.Errorf("e-stop reader %d: %w", i, err))
			}
			unknown := 0
			for j := n; j < len(progress); j++ {
				if !progress[j].Known {
					unknown++
					progress[j] = dds.WriterProgress{Writer: progress[j].Writer, Next: 1, Known: true}
				}
			}
			if unknown > 0 {
				errs = append(errs, fmt.Errorf("e-stop reader %d: the reliable-protocol state of %d matched writer(s) could not be read", i, unknown))
			}
			continue
		}
		// No reliable-protocol state to judge: only the writers' coming and going.
		hs, err := r.MatchedWriters(nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("e-stop reader %d: %w", i, err))
		}
		for _, h := range hs {
			progress = append(progress, dds.WriterProgress{Writer: h, Next: 1, Known: true})
		}
	}
	return progress, errors.Join(errs...)
}

// EStopWatchHealth is the e-stop watch's own state, for /diagnostics (EStopWatchStatus) and the log.
type EStopWatchHealth struct {
	// Off says why the rules that read Cyclone's internals (announced samples, catch-up) are off; "" when on.
	Off string
	// Err is the last poll's error ("" when the last poll read everything); Since the first poll of this run
	// of errors; Errors the polls with an error since the bridge started.
	Err    string
	Since  time.Time
	Errors uint64
	// Writers is the number of e-stop writers listed by the last poll.
	Writers int
}

// checkEStopWriters polls the e-stop readers (publisherLoop's tick) and returns a reason to latch, or "".
// A read error is not a reason to latch (docs/ros2.md, "When the watch cannot read"): it is logged at ERROR
// (at its start and when it changes) and shown at ERROR on /diagnostics until a poll reads again.
func (b *Bridge) checkEStopWriters(now time.Time) string {
	readers := make([]progressReader, len(b.estopReaders))
	reliable := make([]bool, len(b.estopReaders))
	for i, r := range b.estopReaders {
		readers[i], reliable[i] = r, estopQoS[i].Reliable
	}
	off := ""
	if err := dds.Internals(); err != nil {
		off = err.Error()
	}
	progress, err := pollEStopWriters(readers, reliable, off != "")
	if err != nil && b.life.Err() != nil {
		err = nil // the readers close at shutdown
	}
	b.noteWatch(now, off, err, len(progress))
	return b.watch.observe(now, progress)
}

// noteWatch records a poll's outcome in b.watchHealth and logs a change of it.
func (b *Bridge) noteWatch(now time.Time, off string, err error, writers int) {
	b.watchMu.Lock()
	h := &b.watchHealth
	prev := h.Err
	h.Off, h.Writers = off, writers
	if err != nil {
		h.Errors++
		if h.Err == "" {
			h.Since = now
		}
		h.Err = err.Error()
	} else {
		h.Err, h.Since = "", time.Time{}
	}
	cur, n := h.Err, h.Errors
	b.watchMu.Unlock()
	switch {
	case cur != "" && cur != prev:
		b.log.Error("e-stop watch: cannot read the e-stop writers' state; an e-stop sample lost on the way is not detected while this lasts (the samples that arrive still latch)",
			"err", cur, "errors", n)
	case cur == "" && prev != "":
		b.log.Warn("e-stop watch: the e-stop writers' state reads again", "errors", n)
	}
}

// WatchHealth returns the e-stop watch's state.
func (b *Bridge) WatchHealth() EStopWatchHealth {
	b.watchMu.Lock()
	defer b.watchMu.Unlock()
	return b.watchHealth
}
