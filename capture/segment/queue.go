package segment

import (
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// segmentWriter is what a Queue writes to: *Segments, a *File, or a test's faulty disk.
type segmentWriter interface {
	Write(ch int, t time.Time, data []byte) error
	WriteMessage(ch int, t time.Time, m rosmsg.Message) error
	Stats() SegmentStats
	Close() error
}

// QueueOptions configure a Queue.
type QueueOptions struct {
	Segments SegmentOptions // StartFileQueue uses only its Metadata and Log
	// Channels are the caller's channels; Put and PutMessage take indexes into it. Every raw channel's
	// decoded channels (capture.DecodedChannels) follow them in the recording, decoded in the writer
	// goroutine through capture.Decoded.
	Channels []ChannelSpec
	// Len is the queue's length in messages (DefaultQueueLen).
	Len int
	// OnStop is called once, in the writer goroutine, when recording stops on an error (a full disk).
	OnStop func(err error)

	open func() (segmentWriter, error) // tests: a faulty disk
}

// DefaultQueueLen: the board sends about 700 reads a second at its usual rates, so 8192 messages are over
// ten seconds of a disk that does not take anything before the queue drops.
const DefaultQueueLen = 8192

// Queue records from the goroutines that own a port without ever making them wait for the disk: Put is a
// non-blocking send to a bounded queue (a full queue drops the message and counts it), and one goroutine
// writes the queue into rotating Segments (or one File) and feeds every raw channel's bytes to its own
// capture.Decoded, which writes the decoded channels. The recorder's own write path takes a lock that its flusher
// holds while it writes 64 KiB to the kernel, and a rotation finishes a file; neither may reach a stop path.
type Queue struct {
	o    QueueOptions
	q    chan queued
	done chan struct{}

	mu     sync.Mutex // guards closed against Put after Close
	closed bool

	specs   []ChannelSpec            // Channels, then the decoded channels
	topicCh map[string]int           // decoded topic -> index into specs
	decs    map[int]*capture.Decoded // raw channel index -> its decoder (the writer goroutine's)

	dropped   atomic.Uint64
	recording atomic.Bool
	seg       atomicSeg
	stopErr   atomicErr
	closeErr  error
}

type queued struct {
	ch   int
	t    time.Time
	data []byte
	msg  rosmsg.Message // a decoded message instead of raw bytes
}

// StartQueue starts the writer goroutine, which opens the first segment (and recovers leftovers) itself, so
// the caller's start is not delayed by the disk. Put may be called at once.
func StartQueue(o QueueOptions) *Queue {
	q := newQueue(o)
	if q.o.open == nil {
		q.o.open = func() (segmentWriter, error) { return OpenSegments(q.o.Segments, q.specs) }
	}
	q.start()
	return q
}

// StartFileQueue creates one recording at path (path.part while recording), without rotation, for a tool
// that records one run (capture tap, capture record): a path it cannot create is an error at once. Then it
// starts the writer goroutine as StartQueue does.
func StartFileQueue(path string, o QueueOptions) (*Queue, error) {
	q := newQueue(o)
	f, err := CreateFile(path, o.Segments.Metadata, q.specs)
	if err != nil {
		return nil, err
	}
	q.o.open = func() (segmentWriter, error) { return f, nil }
	q.start()
	return q, nil
}

// newQueue lays out the channels (the caller's, then each raw channel's decoded ones) and the decoders.
func newQueue(o QueueOptions) *Queue {
	if o.Len <= 0 {
		o.Len = DefaultQueueLen
	}
	if o.Segments.Log == nil {
		o.Segments.Log = slog.New(slog.DiscardHandler)
	}
	q := &Queue{o: o, q: make(chan queued, o.Len), done: make(chan struct{}), topicCh: map[string]int{},
		decs: map[int]*capture.Decoded{}}
	q.specs = append(q.specs, o.Channels...)
	for i, sp := range o.Channels {
		if sp.Kind == "" {
			q.topicCh[sp.Topic] = i // a caller's channel of a decoded topic takes the decoded messages
		}
	}
	for i, sp := range o.Channels {
		if sp.Kind == "" {
			continue
		}
		for _, c := range capture.DecodedChannels(sp.Kind, sp.Dir) {
			if _, ok := q.topicCh[c.Topic]; !ok {
				q.topicCh[c.Topic] = len(q.specs)
				q.specs = append(q.specs, ChannelSpec{Topic: c.Topic, Type: c.Type})
			}
		}
		d, err := capture.NewDecodedTo(queueSink{q}, sp.Kind, sp.Dir)
		if err == nil { // a kind without a decoder is recorded raw only
			q.decs[i] = d
		}
	}
	return q
}

func (q *Queue) start() {
	q.recording.Store(true)
	go q.run()
}

// Put queues one raw message; data must not change afterwards. It never blocks: it returns false when the
// message was dropped (queue full, or recording stopped or closed).
func (q *Queue) Put(ch int, t time.Time, data []byte) bool {
	return q.put(queued{ch: ch, t: t, data: data})
}

// PutMessage queues one decoded message (which must not change afterwards), like Put.
func (q *Queue) PutMessage(ch int, t time.Time, m rosmsg.Message) bool {
	return q.put(queued{ch: ch, t: t, msg: m})
}

func (q *Queue) put(ev queued) bool {
	if q == nil {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	select {
	case q.q <- ev:
		return true
	default:
		q.dropped.Add(1)
		return false
	}
}

func (q *Queue) stop(err error) {
	if q.recording.Load() {
		q.recording.Store(false)
		q.stopErr.Store(err)
		q.o.Segments.Log.Error("CAPTURE STOPPED: recording failed; the driver keeps running without it",
			"dir", q.o.Segments.Dir, "err", err)
		if q.o.OnStop != nil {
			q.o.OnStop(err)
		}
	}
}

func (q *Queue) run() {
	defer close(q.done)
	w, err := q.o.open()
	if err != nil {
		q.stop(err)
		for range q.q { // drain so that Close returns
		}
		return
	}
	q.seg.Store(w)
	for ev := range q.q {
		if !q.recording.Load() {
			continue // stopped: drain and discard
		}
		if ev.msg != nil {
			if err := w.WriteMessage(ev.ch, ev.t, ev.msg); err != nil {
				q.stop(err)
			}
			continue
		}
		if err := w.Write(ev.ch, ev.t, ev.data); err != nil {
			q.stop(err)
			continue
		}
		if d := q.decs[ev.ch]; d != nil {
			if err := d.Feed(ev.t, ev.data); err != nil {
				q.stop(err)
			}
		}
	}
	q.closeErr = w.Close()
}

var (
	_ capture.Sink  = queueSink{}
	_ segmentWriter = (*Segments)(nil)
	_ segmentWriter = (*File)(nil)
)

// queueSink is the decoders' way into the writer: by topic to the decoded channel's index. Only the writer
// goroutine calls it, with the writer it opened.
type queueSink struct{ q *Queue }

func (s queueSink) WriteMessage(topic string, t time.Time, m rosmsg.Message) error {
	ch, ok := s.q.topicCh[topic]
	if !ok {
		return fmt.Errorf("capture: decoded channel %s is not in this recording", topic)
	}
	return s.q.seg.Load().WriteMessage(ch, t, m)
}

// Decoded is the decoder of raw channel ch (nil for a message channel), for its counts once Close returned.
func (q *Queue) Decoded(ch int) *capture.Decoded {
	if q == nil {
		return nil
	}
	return q.decs[ch]
}

// Close stops taking messages, writes what is queued and finishes the current segment.
func (q *Queue) Close() error {
	if q == nil {
		return nil
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	close(q.q)
	q.mu.Unlock()
	<-q.done
	if err := q.stopErr.Load(); err != nil {
		return err
	}
	return q.closeErr
}

// QueueStatus is a Queue's state for a status record.
type QueueStatus struct {
	Recording bool   `json:"recording"`
	Dir       string `json:"dir"`
	File      string `json:"file,omitempty"` // the segment being written (data in FILE.part)
	Segments  int    `json:"segments"`
	Messages  uint64 `json:"messages"`
	Bytes     uint64 `json:"bytes"`
	Dropped   uint64 `json:"dropped"` // messages the full queue could not take
	Recovered int    `json:"recovered,omitempty"`
	Deleted   int    `json:"deleted,omitempty"`
	Error     string `json:"error,omitempty"` // why recording stopped
}

// Status returns the queue's state.
func (q *Queue) Status() QueueStatus {
	if q == nil {
		return QueueStatus{}
	}
	st := QueueStatus{Recording: q.recording.Load(), Dir: q.o.Segments.Dir, Dropped: q.dropped.Load()}
	if w := q.seg.Load(); w != nil {
		s := w.Stats()
		st.File, st.Segments, st.Messages, st.Bytes, st.Recovered, st.Deleted =
			s.Current, s.Segments, s.Messages, s.Bytes, s.Recovered, s.Deleted
	}
	if err := q.stopErr.Load(); err != nil {
		st.Error = err.Error()
	}
	return st
}

// Typed atomics for an interface and an error.
type (
	atomicSeg struct{ v atomic.Pointer[segmentWriter] }
	atomicErr struct{ v atomic.Pointer[error] }
)

func (a *atomicSeg) Store(w segmentWriter) { a.v.Store(&w) }
func (a *atomicSeg) Load() segmentWriter {
	if p := a.v.Load(); p != nil {
		return *p
	}
	return nil
}
func (a *atomicErr) Store(err error) { a.v.Store(&err) }
func (a *atomicErr) Load() error {
	if p := a.v.Load(); p != nil {
		return *p
	}
	return nil
}
