package mcapfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// Names shared by the recorder and the readers.
const (
	Profile        = "ros2"
	RawSchemaName  = "rosorin_msgs/msg/SerialChunk"
	RawSchemaText  = "uint32 seq\nuint8[] data\n"
	CaptureMeta    = "rosorin.capture"  // metadata record: device, baud, host, version, ...
	RecoveryMeta   = "rosorin.recovery" // metadata record written by Rewrite when the input was cut
	PartSuffix     = ".part"
	library        = "mcap go v1.7.0; rosorin capture/mcapfile"
	defaultFlush   = 100 * time.Millisecond
	defaultSync    = time.Second
	bufferSize     = 64 << 10
	finalChunkSize = 1 << 20
)

// QoS is the offered_qos_profiles value rosbag2 (Humble) writes for a reliable, volatile publisher.
const QoS = `- history: 3
  depth: 0
  reliability: 1
  durability: 2
  deadline:
    sec: 9223372036
    nsec: 854775807
  lifespan:
    sec: 9223372036
    nsec: 854775807
  liveliness: 1
  liveliness_lease_duration:
    sec: 9223372036
    nsec: 854775807
  avoid_ros_namespace_conventions: false
`

// Options configure a Recorder. Zero values take the defaults.
type Options struct {
	Metadata   map[string]string // written as the rosorin.capture metadata record
	FlushEvery time.Duration     // buffer to kernel; default 100 ms
	SyncEvery  time.Duration     // fsync; default 1 s
	NoFinish   bool              // Close leaves NAME.part as is (tests of recovery)
	Clock      clock.Timers      // times the flushes and fsyncs; clock.Real{} when nil
}

// Channel is a channel registered with a Recorder.
type Channel struct {
	id    uint16
	seq   uint32
	raw   bool
	topic string
	typ   string // the schema's name: the ROS type of a message channel
}

// ErrWrongType is wrapped by WriteMessage when a message's ROSType is not its channel's schema (or the
// channel is a raw one): the message is refused and the recording goes on. A reader decodes a channel's
// messages by its schema, so a mismatched write would make every reader misread it.
var ErrWrongType = errors.New("message type does not match the channel's schema")

// Recorder writes one MCAP capture. Its methods are safe for concurrent use. After the first write error
// (a full disk) every later call returns that error at once: recording stops, the caller keeps running.
type Recorder struct {
	path string
	opts Options

	mu      sync.Mutex
	f       *os.File
	bw      *bufio.Writer
	w       *mcap.Writer
	schemas map[string]uint16
	nextCh  uint16
	err     error
	closed  bool
	enc     *cdr.Writer
	dirty   bool
	stop    chan struct{}
	done    chan struct{}
}

// Create starts a recording that Close finishes into path; until then the data is in path+".part".
func Create(path string, opts Options) (*Recorder, error) {
	if opts.FlushEvery <= 0 {
		opts.FlushEvery = defaultFlush
	}
	if opts.SyncEvery <= 0 {
		opts.SyncEvery = defaultSync
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	f, err := os.OpenFile(path+PartSuffix, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot create the recording: %w", err)
	}
	r := &Recorder{path: path, opts: opts, f: f, bw: bufio.NewWriterSize(f, bufferSize),
		schemas: map[string]uint16{}, nextCh: 1, enc: cdr.NewWriter(nil),
		stop: make(chan struct{}), done: make(chan struct{})}
	r.w, err = mcap.NewWriter(r.bw, &mcap.WriterOptions{Chunked: false, SkipStatistics: true,
		SkipMessageIndexing: true, SkipSummaryOffsets: true, SkipChunkIndex: true})
	if err == nil {
		err = r.w.WriteHeader(&mcap.Header{Profile: Profile, Library: "rosorin capture/mcapfile"}) // the writer prefixes "mcap go v1.7.0; "
	}
	if err == nil && len(opts.Metadata) > 0 {
		err = r.w.WriteMetadata(&mcap.Metadata{Name: CaptureMeta, Metadata: opts.Metadata})
	}
	if err == nil {
		err = r.syncLocked()
	}
	if err != nil {
		f.Close()
		os.Remove(path + PartSuffix)
		return nil, fmt.Errorf("cannot start the recording: %w", err)
	}
	go r.flusher()
	return r, nil
}

// PartPath is the file the recorder writes to until Close.
func (r *Recorder) PartPath() string { return r.path + PartSuffix }

func (r *Recorder) flusher() {
	defer close(r.done)
	tick := r.opts.Clock.NewTicker(r.opts.FlushEvery)
	defer tick.Stop()
	lastSync := r.opts.Clock.Now()
	for {
		select {
		case <-r.stop:
			return
		case now := <-tick.C():
			r.mu.Lock()
			if r.err == nil && r.dirty {
				if err := r.bw.Flush(); err != nil {
					r.err = fmt.Errorf("recording stopped: %w", err)
				}
				r.dirty = false
			}
			ok := r.err == nil
			r.mu.Unlock()
			// fsync outside the lock: a slow disk must not hold up a writer (the driver's stop path).
			if ok && now.Sub(lastSync) >= r.opts.SyncEvery {
				lastSync = now
				if err := r.f.Sync(); err != nil {
					r.mu.Lock()
					r.err = fmt.Errorf("recording stopped: %w", err)
					r.mu.Unlock()
				}
			}
		}
	}
}

func (r *Recorder) syncLocked() error {
	if err := r.bw.Flush(); err != nil {
		return err
	}
	return r.f.Sync()
}

func (r *Recorder) schemaLocked(name, encoding, text string) (uint16, error) {
	if id, ok := r.schemas[name]; ok {
		return id, nil
	}
	id := uint16(len(r.schemas) + 1)
	if err := r.w.WriteSchema(&mcap.Schema{ID: id, Name: name, Encoding: encoding, Data: []byte(text)}); err != nil {
		return 0, err
	}
	r.schemas[name] = id
	return id, nil
}

func (r *Recorder) channel(topic, schemaName, schemaText string, meta map[string]string, raw bool) (*Channel, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usableLocked(); err != nil {
		return nil, err
	}
	sid, err := r.schemaLocked(schemaName, "ros2msg", schemaText)
	if err == nil {
		md := map[string]string{"offered_qos_profiles": QoS}
		for k, v := range meta {
			md[k] = v
		}
		err = r.w.WriteChannel(&mcap.Channel{ID: r.nextCh, SchemaID: sid, Topic: topic, MessageEncoding: "cdr", Metadata: md})
	}
	if err != nil {
		r.err = fmt.Errorf("recording stopped: %w", err)
		return nil, r.err
	}
	r.dirty = true
	c := &Channel{id: r.nextCh, raw: raw, topic: topic, typ: schemaName}
	r.nextCh++
	return c, nil
}

// RawChannel registers a channel of raw serial bytes. kind ("board" or "lidar") tells the readers which
// decoder the bytes need; it is stored as channel metadata.
func (r *Recorder) RawChannel(topic, kind string) (*Channel, error) {
	return r.channel(topic, RawSchemaName, RawSchemaText, map[string]string{"kind": kind}, true)
}

// MessageChannel registers a channel of a protocol/rosmsg type ("sensor_msgs/msg/Imu").
func (r *Recorder) MessageChannel(topic, rosType string) (*Channel, error) {
	text, err := rosmsg.Schema(rosType)
	if err != nil {
		return nil, err
	}
	return r.channel(topic, rosType, text, nil, false)
}

func (r *Recorder) usableLocked() error {
	if r.closed {
		return errors.New("recording is closed")
	}
	return r.err
}

// EncodeRaw returns the CDR payload of a SerialChunk message.
func EncodeRaw(w *cdr.Writer, seq uint32, data []byte) []byte {
	w.Reset()
	w.Uint32(seq)
	w.Len(len(data))
	w.Octets(data)
	return w.Bytes()
}

// DecodeRaw parses a SerialChunk payload; data aliases b.
func DecodeRaw(b []byte) (seq uint32, data []byte, err error) {
	if len(b) < 12 || b[1] != 0x01 {
		return 0, nil, fmt.Errorf("serial chunk of %d bytes is not CDR little-endian uint32 seq + uint8[]", len(b))
	}
	seq = uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24
	n := uint64(b[8]) | uint64(b[9])<<8 | uint64(b[10])<<16 | uint64(b[11])<<24
	if n != uint64(len(b)-12) {
		return 0, nil, fmt.Errorf("serial chunk claims %d bytes and holds %d", n, len(b)-12)
	}
	return seq, b[12:], nil
}

// Write records one read or write of raw bytes received at t.
func (r *Recorder) Write(c *Channel, t time.Time, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usableLocked(); err != nil {
		return err
	}
	return r.writeLocked(c, t, EncodeRaw(r.enc, c.seq, data))
}

// WriteMessage records one decoded message. A message whose ROSType is not the channel's schema is refused
// with ErrWrongType.
func (r *Recorder) WriteMessage(c *Channel, t time.Time, m rosmsg.Message) error {
	if c.raw || m.ROSType() != c.typ {
		return fmt.Errorf("%s on %s (%s): %w", m.ROSType(), c.topic, c.typ, ErrWrongType)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usableLocked(); err != nil {
		return err
	}
	r.enc.Reset()
	m.MarshalCDR(r.enc)
	return r.writeLocked(c, t, r.enc.Bytes())
}

func (r *Recorder) writeLocked(c *Channel, t time.Time, payload []byte) error {
	ns := uint64(t.UnixNano())
	err := r.w.WriteMessage(&mcap.Message{ChannelID: c.id, Sequence: c.seq, LogTime: ns, PublishTime: ns, Data: payload})
	if err != nil {
		r.err = fmt.Errorf("recording stopped: %w", err)
		return r.err
	}
	c.seq++
	r.dirty = true
	return nil
}

// Err reports why recording stopped, or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close ends the recording: it flushes and syncs the .part file, then rewrites it into the final indexed
// file and removes it. When the rewrite fails the .part file is kept for `capture recover`.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return errors.New("recording already closed")
	}
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	err := r.err
	if err == nil {
		err = r.w.WriteDataEnd(&mcap.DataEnd{})
	}
	if err == nil {
		err = r.syncLocked()
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("closing the recording (%s kept): %w", r.PartPath(), err)
	}
	if r.opts.NoFinish {
		return nil
	}
	if _, err := RewriteFile(r.PartPath(), r.path); err != nil {
		return fmt.Errorf("finishing the recording (%s kept): %w", r.PartPath(), err)
	}
	return os.Remove(r.PartPath())
}
