package stoplog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/fsutil"
)

// Defaults of Options' zero fields.
const (
	// DefaultBatchDelay is the exposure window: a record accepted and not yet flushed when the process dies
	// is lost. A stop is timed seconds after its trigger, so 200 ms adds little, and it turns a burst of stops
	// into one fsync.
	DefaultBatchDelay = 200 * time.Millisecond
	// DefaultRetryDelay is the wait before a failed batch is tried again (a full or stuck disk).
	DefaultRetryDelay = time.Second
	// DefaultSegmentSize: a record is about 500 bytes, so a segment holds about 2000 stops.
	DefaultSegmentSize = 1 << 20
	// DefaultMaxSegments bounds the log to about 16 MiB: tens of thousands of stops, years of service.
	DefaultMaxSegments = 16
	// DefaultMaxQueue bounds the records waiting for the disk; past it Append drops and counts.
	DefaultMaxQueue = 1024
)

// ErrClosed is returned by Flush after Close.
var ErrClosed = errors.New("stop log closed")

// Options tune a Log; the zero value is the defaults.
type Options struct {
	Clock       clock.Full // clock.Real{} when nil
	BatchDelay  time.Duration
	RetryDelay  time.Duration
	SegmentSize int64
	MaxSegments int
	MaxQueue    int

	// openSeg opens a segment file (tests put a stuck or failing writer here); os.OpenFile when nil.
	openSeg func(path string, flag int) (segFile, error)
}

// segFile is what the writer needs of a segment file.
type segFile interface {
	io.Writer
	Sync() error
	Close() error
}

// Stats is the log's counters, for the driver's state.
type Stats struct {
	LastSeq  uint64 // the last seq assigned
	Appended uint64 // records accepted by Append
	Written  uint64 // records written and fsynced
	Dropped  uint64 // records lost: the queue was full, a record could not be encoded, or Append after Close
	Queued   int    // records waiting for the disk
	// Err is the last write's error (nil once a later batch is written), else the reason of the last drop.
	Err error
}

// Log is an open stop log. Append, Flush, Stats and Close may be called from any goroutine.
type Log struct {
	dir string
	o   Options

	mu       sync.Mutex
	seq      uint64
	queue    [][]byte // encoded lines, in seq order
	appended uint64
	written  uint64
	dropped  uint64
	writeErr error
	dropErr  error
	closed   bool

	kick   chan struct{}   // the queue went non-empty (capacity 1)
	flushc chan chan error // Flush's requests
	stop   chan struct{}
	done   chan struct{}

	closeOnce sync.Once
	closeErr  error

	// owned by the writer goroutine
	seg     segFile
	segSize int64
	nums    []int // the segments on disk, oldest first
	buf     []byte
}

// Open opens (creating it if needed) the stop log in stateDir/stops and starts its writer. It scans every
// segment: the Recovery names each bad record and counts the good ones, and a torn last line of the newest
// segment is cut off (and the file fsynced) so the next record starts on a line of its own. Seq continues from
// the highest seq found. Only a folder that cannot be made or listed is an error.
func Open(stateDir string, o Options) (*Log, Recovery, error) {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.BatchDelay <= 0 {
		o.BatchDelay = DefaultBatchDelay
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = DefaultRetryDelay
	}
	if o.SegmentSize <= 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.MaxSegments <= 0 {
		o.MaxSegments = DefaultMaxSegments
	}
	if o.MaxQueue <= 0 {
		o.MaxQueue = DefaultMaxQueue
	}
	if o.openSeg == nil {
		o.openSeg = func(path string, flag int) (segFile, error) { return os.OpenFile(path, flag, 0o644) }
	}
	dir := filepath.Join(stateDir, SubDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, Recovery{}, fmt.Errorf("stop log: cannot make its folder: %w; check the state directory's owner and permissions", err)
	}
	r, nums, size, err := scan(dir, true, nil)
	if err != nil {
		return nil, r, fmt.Errorf("stop log: cannot list %s: %w", dir, err)
	}
	l := &Log{
		dir: dir, o: o, seq: r.LastSeq, nums: nums,
		kick: make(chan struct{}, 1), flushc: make(chan chan error), stop: make(chan struct{}), done: make(chan struct{}),
	}
	// Keep writing the newest segment while it has room; if it cannot be opened, the first batch starts a new one.
	if len(nums) > 0 && size < o.SegmentSize {
		if f, err := o.openSeg(filepath.Join(dir, segName(nums[len(nums)-1])), os.O_WRONLY|os.O_APPEND); err == nil {
			l.seg, l.segSize = f, size
		}
	}
	go l.run()
	return l, r, nil
}

// Next is the seq the next Append assigns (for a caller, the driver's loop, that names the record before it
// appends it; with one appender the two agree).
func (l *Log) Next() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq + 1
}

// Append assigns rec the next seq, queues it for the writer and returns it. It never waits for the disk: a
// full queue (the disk is stuck) drops the record and counts it in Stats. A dropped record keeps its seq, so
// the gap in the log shows the loss.
func (l *Log) Append(rec api.StopRecord) api.StopRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	rec.Seq = l.seq
	switch {
	case l.closed:
		l.dropped++
		l.dropErr = fmt.Errorf("stop record seq %d dropped: %w", rec.Seq, ErrClosed)
		return rec
	case len(l.queue) >= l.o.MaxQueue:
		l.dropped++
		l.dropErr = fmt.Errorf("stop record seq %d dropped: %d records wait for the disk (the queue is full)", rec.Seq, len(l.queue))
		return rec
	}
	// Encoded here, not by the writer: the record's slices and pointers are the caller's again on return.
	line, err := AppendLine(nil, rec)
	if err != nil {
		l.dropped++
		l.dropErr = err
		return rec
	}
	l.appended++
	l.queue = append(l.queue, line)
	select {
	case l.kick <- struct{}{}:
	default:
	}
	return rec
}

// Flush writes every record appended before it and fsyncs: when it returns nil they are on disk. It waits
// for the writer, so it is not for the control loop. On an error the records stay queued and are retried.
func (l *Log) Flush() error {
	reply := make(chan error, 1)
	select {
	case l.flushc <- reply:
		return <-reply
	case <-l.done:
		return ErrClosed
	}
}

// Close flushes, stops the writer and closes the segment; it returns the last flush's error (records it
// could not write are counted as dropped). It is idempotent and returns once the writer has exited.
func (l *Log) Close() error {
	l.closeOnce.Do(func() {
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		close(l.stop)
		<-l.done
	})
	return l.closeErr
}

// Stats returns the counters.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Stats{LastSeq: l.seq, Appended: l.appended, Written: l.written, Dropped: l.dropped, Queued: len(l.queue), Err: l.writeErr}
	if s.Err == nil {
		s.Err = l.dropErr
	}
	return s
}

// run is the writer: it owns the segment files.
func (l *Log) run() {
	defer close(l.done)
	var timer <-chan time.Time
	for {
		select {
		case <-l.kick:
			if timer == nil {
				timer = l.o.Clock.After(l.o.BatchDelay)
			}
		case <-timer:
			timer = nil
			if l.writeQueued() != nil {
				timer = l.o.Clock.After(l.o.RetryDelay)
			}
		case reply := <-l.flushc:
			err := l.writeQueued()
			reply <- err
			if err != nil && timer == nil {
				timer = l.o.Clock.After(l.o.RetryDelay)
			}
		case <-l.stop:
			err := l.writeQueued()
			if err != nil {
				l.mu.Lock()
				l.dropped += uint64(len(l.queue))
				l.queue = nil
				l.mu.Unlock()
			}
			if l.seg != nil {
				if cerr := l.seg.Close(); err == nil {
					err = cerr
				}
				l.seg = nil
			}
			l.closeErr = err
			return
		}
	}
}

// writeQueued writes the queue as one batch and fsyncs. The lines not known durable after an error go back
// to the head of the queue.
func (l *Log) writeQueued() error {
	l.mu.Lock()
	batch := l.queue
	l.queue = nil
	l.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	durable, err := l.writeBatch(batch)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.written += uint64(durable)
	if err == nil {
		l.writeErr = nil
		return nil
	}
	l.writeErr = err
	l.queue = append(batch[durable:len(batch):len(batch)], l.queue...)
	if over := len(l.queue) - l.o.MaxQueue; over > 0 { // the newer records that came meanwhile did not fit
		l.dropped += uint64(over)
		l.queue = l.queue[:l.o.MaxQueue]
		l.dropErr = fmt.Errorf("%d stop records dropped: the queue is full while the disk fails", over)
	}
	return err
}

// writeBatch writes the lines, rotating segments, and fsyncs. durable counts the leading lines that are on
// disk (fsynced) even when err is not nil. After an error the segment is abandoned: a partly written line
// must not be followed by another on the same line.
func (l *Log) writeBatch(lines [][]byte) (durable int, err error) {
	defer func() {
		if err != nil && l.seg != nil {
			l.seg.Close()
			l.seg = nil
		}
	}()
	for i := 0; i < len(lines); {
		if l.seg != nil && l.segSize > 0 && l.segSize+int64(len(lines[i])) > l.o.SegmentSize {
			if err := l.seg.Sync(); err != nil {
				return durable, fmt.Errorf("stop log: fsync: %w", err)
			}
			durable = i
			l.seg.Close()
			l.seg = nil
		}
		if l.seg == nil {
			if err := l.newSegment(); err != nil {
				return durable, err
			}
		}
		// As many lines as fit in this segment (at least one), in one write.
		l.buf = l.buf[:0]
		j := i
		for ; j < len(lines); j++ {
			if j > i && l.segSize+int64(len(l.buf)+len(lines[j])) > l.o.SegmentSize {
				break
			}
			l.buf = append(l.buf, lines[j]...)
		}
		n, err := l.seg.Write(l.buf)
		l.segSize += int64(n)
		if err != nil {
			return durable, fmt.Errorf("stop log: write: %w", err)
		}
		i = j
	}
	if err := l.seg.Sync(); err != nil {
		return durable, fmt.Errorf("stop log: fsync: %w", err)
	}
	return len(lines), nil
}

// newSegment creates the next segment, fsyncs the folder and removes the oldest past MaxSegments.
func (l *Log) newSegment() error {
	n := 1
	if len(l.nums) > 0 {
		n = l.nums[len(l.nums)-1] + 1
	}
	path := filepath.Join(l.dir, segName(n))
	f, err := l.o.openSeg(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND)
	if err != nil {
		if errors.Is(err, os.ErrExist) { // a file not listed at Open: the next try takes the next number
			l.nums = append(l.nums, n)
		}
		return fmt.Errorf("stop log: cannot create a segment: %w", err)
	}
	l.nums = append(l.nums, n)
	l.seg, l.segSize = f, 0
	for len(l.nums) > l.o.MaxSegments {
		// Retention: the oldest records go. A removal that fails is tried again at the next rotation.
		if err := os.Remove(filepath.Join(l.dir, segName(l.nums[0]))); err != nil && !errors.Is(err, os.ErrNotExist) {
			break
		}
		l.nums = l.nums[1:]
	}
	if err := fsutil.SyncDir(l.dir); err != nil {
		return fmt.Errorf("stop log: fsync of its folder: %w", err)
	}
	return nil
}
