package segment

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// SegmentOptions say where and how a process records. Zero values: no rotation, no retention limit.
type SegmentOptions struct {
	Dir        string
	Prefix     string        // file name prefix: "board" gives DIR/board-20261201T121400.123Z.mcap
	RotateSize int64         // start a new segment once the current one holds about this many bytes
	RotateTime time.Duration // ... or is this old
	KeepFiles  int           // keep at most this many finished segments of this prefix (0: any number)
	KeepBytes  int64         // ... and at most this many bytes of them (0: any size)
	Metadata   map[string]string
	Log        *slog.Logger
	Clock      clock.Clock // names and ages the segments (clock.Real{})
	// Static are messages every segment starts with, each on a channel of its own (the driver's /tf_static:
	// a segment played or opened alone places the scan).
	Static []StaticMessage
}

// StaticMessage is a message written once at the start of each segment, made for that segment's start time.
type StaticMessage struct {
	Topic string
	Type  string // the ROS type; must be Msg's
	Msg   func(start time.Time) rosmsg.Message
}

// ChannelSpec is one channel of every segment: a raw serial stream (Raw: Kind set) or a message channel
// (Message: Type set). A Queue adds the decoded channels of each raw stream itself.
type ChannelSpec struct {
	Topic string
	Kind  capture.Kind      // raw: "board", "lidar"
	Dir   capture.Direction // raw: which way the bytes went
	Type  string            // message: the ROS type, "sensor_msgs/msg/Imu"
}

// Raw is the spec of a raw serial channel (capture.RawTopic(kind, dir)).
func Raw(kind capture.Kind, dir capture.Direction) ChannelSpec {
	return ChannelSpec{Topic: capture.RawTopic(kind, dir), Kind: kind, Dir: dir}
}

// Message is the spec of a channel of proto's message type (proto may be a nil pointer of the type).
func Message(topic string, proto rosmsg.Message) ChannelSpec {
	return ChannelSpec{Topic: topic, Type: proto.ROSType()}
}

// SegmentStats are what a Segments wrote so far.
type SegmentStats struct {
	Current   string // the segment being written (its final name; the data is in Current+".part")
	Segments  int    // segments started
	Deleted   int    // finished segments deleted by retention
	Recovered int    // leftover .part files recovered at start
	Messages  uint64
	Bytes     uint64 // approximate bytes written (records, not counting the final index)
}

// Segments writes a rotating series of recordings. Write, WriteMessage and Close are for one goroutine; Stats
// and Err may be called from any.
type Segments struct {
	o     SegmentOptions
	specs []ChannelSpec

	rec      *mcapfile.Recorder
	chans    []*mcapfile.Channel
	started  time.Time
	size     int64
	statAt   time.Time
	finishWG sync.WaitGroup

	retainMu sync.Mutex

	mu  sync.Mutex
	st  SegmentStats
	err error
}

// recordOverhead approximates the bytes of an MCAP message record beyond its payload (opcode, length,
// channel, sequence, two times): rotation by size needs only an estimate.
const recordOverhead = 1 + 8 + 2 + 4 + 8 + 8

// sizeCheckEvery is how often rotation by size looks at the .part file's size.
const sizeCheckEvery = 200 * time.Millisecond

// timeLayout names segments in UTC so that names sort in time order.
const timeLayout = "20060102T150405.000Z"

// OpenSegments recovers the leftover .part files of this prefix in o.Dir (in the background: Close waits for
// it) and starts the first segment.
func OpenSegments(o SegmentOptions, specs []ChannelSpec) (*Segments, error) {
	if o.Dir == "" || o.Prefix == "" {
		return nil, errors.New("capture: segments need a directory and a prefix")
	}
	if strings.ContainsAny(o.Prefix, "/-") {
		return nil, fmt.Errorf("capture: segment prefix %q must not contain / or -", o.Prefix)
	}
	if o.RotateSize < 0 || o.RotateTime < 0 || o.KeepFiles < 0 || o.KeepBytes < 0 {
		return nil, errors.New("capture: rotation and retention limits must not be negative")
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("capture directory: %w", err)
	}
	s := &Segments{o: o, specs: specs}
	leftovers, err := filepath.Glob(filepath.Join(o.Dir, o.Prefix+"-*.mcap"+mcapfile.PartSuffix))
	if err != nil {
		return nil, err
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	if len(leftovers) > 0 {
		s.finishWG.Add(1)
		go func() {
			defer s.finishWG.Done()
			for _, p := range leftovers {
				s.recoverPart(p)
			}
			s.retain()
		}()
	}
	return s, nil
}

// recoverPart turns a .part a killed run left into its finished file, as `capture recover` would.
func (s *Segments) recoverPart(part string) {
	final := strings.TrimSuffix(part, mcapfile.PartSuffix)
	if _, err := os.Stat(final); err == nil {
		// The run was killed between the rename of the finished file and the removal of the .part.
		_ = os.Remove(part)
		return
	}
	rep, err := mcapfile.RewriteFile(part, final)
	if err != nil {
		s.o.Log.Error("capture: cannot recover a leftover recording; run `capture recover` by hand",
			"part", part, "err", err)
		return
	}
	_ = os.Remove(part)
	s.mu.Lock()
	s.st.Recovered++
	s.mu.Unlock()
	s.o.Log.Warn("capture: recovered a recording a killed run left", "file", final, "report", rep.String())
}

func (s *Segments) segmentName() string {
	now := s.o.Clock.Now().UTC()
	base := filepath.Join(s.o.Dir, s.o.Prefix+"-"+now.Format(timeLayout))
	name := base + ".mcap"
	for i := 1; exists(name) || exists(name+mcapfile.PartSuffix); i++ {
		name = base + "_" + strconv.Itoa(i) + ".mcap"
	}
	return name
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func (s *Segments) start() error {
	name := s.segmentName()
	rec, err := mcapfile.Create(name, mcapfile.Options{Metadata: s.o.Metadata})
	if err != nil {
		return err
	}
	chans := make([]*mcapfile.Channel, len(s.specs))
	for i, sp := range s.specs {
		if sp.Kind != "" {
			chans[i], err = rec.RawChannel(sp.Topic, string(sp.Kind))
		} else {
			chans[i], err = rec.MessageChannel(sp.Topic, sp.Type)
		}
		if err != nil {
			rec.Close()
			return fmt.Errorf("capture channel %s: %w", sp.Topic, err)
		}
	}
	now := s.o.Clock.Now()
	for _, st := range s.o.Static {
		ch, err := rec.MessageChannel(st.Topic, st.Type)
		if err == nil {
			err = rec.WriteMessage(ch, now, st.Msg(now))
		}
		if err != nil {
			rec.Close()
			return fmt.Errorf("capture channel %s: %w", st.Topic, err)
		}
	}
	s.rec, s.chans, s.started, s.size = rec, chans, now, 0
	s.mu.Lock()
	s.st.Current = name
	s.st.Segments++
	s.mu.Unlock()
	return nil
}

// rotateIfDue starts a new segment when the current one is full or old, and finishes the old one in the
// background (the rewrite of a 64 MiB segment takes about 0.2 s; the writer must not wait for it).
func (s *Segments) rotateIfDue() error {
	if now := s.o.Clock.Now(); s.o.RotateSize > 0 && now.Sub(s.statAt) >= sizeCheckEvery {
		// The count of written records underestimates decoded messages (their CDR size is the recorder's
		// business): the flushed file's size corrects it.
		s.statAt = now
		if fi, err := os.Stat(s.rec.PartPath()); err == nil && fi.Size() > s.size {
			s.size = fi.Size()
		}
	}
	full := s.o.RotateSize > 0 && s.size >= s.o.RotateSize
	old := s.o.RotateTime > 0 && s.o.Clock.Now().Sub(s.started) >= s.o.RotateTime
	if !full && !old {
		return nil
	}
	prev, prevName := s.rec, s.Stats().Current
	if err := s.start(); err != nil {
		return err
	}
	s.finishWG.Add(1)
	go func() {
		defer s.finishWG.Done()
		s.finish(prev, prevName)
		s.retain()
	}()
	return nil
}

func (s *Segments) finish(rec *mcapfile.Recorder, name string) {
	if err := rec.Close(); err != nil {
		s.o.Log.Error("capture: finishing a segment failed; its .part is kept for `capture recover`", "file", name, "err", err)
		return
	}
}

// retain deletes the oldest finished segments of this prefix beyond KeepFiles and KeepBytes. The segment
// being written is never deleted (it is a .part until finished). It holds no lock while it touches the disk:
// Stats is read by the supervisor's loop, which must not wait for an unlink.
func (s *Segments) retain() {
	if s.o.KeepFiles == 0 && s.o.KeepBytes == 0 {
		return
	}
	s.retainMu.Lock() // one retention pass at a time (background finishes, Close)
	defer s.retainMu.Unlock()
	current := s.Stats().Current
	files, _ := filepath.Glob(filepath.Join(s.o.Dir, s.o.Prefix+"-*.mcap"))
	sort.Strings(files) // UTC names: oldest first
	sizes := make([]int64, len(files))
	var total int64
	for i, f := range files {
		if fi, err := os.Stat(f); err == nil {
			sizes[i] = fi.Size()
			total += sizes[i]
		}
	}
	for i, f := range files {
		n := len(files) - i
		if !(s.o.KeepFiles > 0 && n > s.o.KeepFiles) && !(s.o.KeepBytes > 0 && total > s.o.KeepBytes) {
			break
		}
		if f == current {
			continue
		}
		if err := os.Remove(f); err != nil {
			s.o.Log.Warn("capture: retention could not delete a segment", "file", f, "err", err)
			continue
		}
		total -= sizes[i]
		s.mu.Lock()
		s.st.Deleted++
		s.mu.Unlock()
		s.o.Log.Info("capture: deleted the oldest segment (retention)", "file", f)
	}
}

func (s *Segments) fail(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
	return s.err
}

func (s *Segments) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.rec == nil {
		return errors.New("capture: segments closed")
	}
	return nil
}

// Write records one read or write of raw bytes on channel ch (an index into the specs) at t. After the first
// error (a full disk) every call returns it: recording has stopped.
func (s *Segments) Write(ch int, t time.Time, data []byte) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.rotateIfDue(); err != nil {
		return s.fail(err)
	}
	if err := s.rec.Write(s.chans[ch], t, data); err != nil {
		return s.fail(err)
	}
	s.count(len(data) + 12)
	return nil
}

// WriteMessage records one decoded message on channel ch at t.
func (s *Segments) WriteMessage(ch int, t time.Time, m rosmsg.Message) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.rotateIfDue(); err != nil {
		return s.fail(err)
	}
	if err := s.rec.WriteMessage(s.chans[ch], t, m); err != nil {
		return s.fail(err)
	}
	s.count(64) // decoded messages are small; an estimate is enough for rotation
	return nil
}

func (s *Segments) count(payload int) {
	n := int64(payload + recordOverhead)
	s.size += n
	s.mu.Lock()
	s.st.Messages++
	s.st.Bytes += uint64(n)
	s.mu.Unlock()
}

// Err reports why recording stopped, or nil.
func (s *Segments) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stats returns the counters so far.
func (s *Segments) Stats() SegmentStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// Close finishes the current segment (rewritten into its indexed file; after a write error its .part is kept
// for `capture recover`) and waits for the background finishes and recoveries.
func (s *Segments) Close() error {
	var err error
	if s.rec != nil {
		err = s.rec.Close()
		s.rec = nil
		s.mu.Lock()
		s.st.Current = ""
		s.mu.Unlock()
	}
	s.finishWG.Wait()
	s.retain()
	return err
}

// ParseKeep parses --capture-keep: a count of segments ("20") or a total size ("2GiB", "500MB", "64MiB").
func ParseKeep(v string) (files int, bytes int64, err error) {
	if v == "" {
		return 0, 0, nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0, 0, fmt.Errorf("--capture-keep %q: a count must not be negative", v)
		}
		return n, 0, nil
	}
	b, err := ParseSize(v)
	if err != nil {
		return 0, 0, fmt.Errorf("--capture-keep %q: want a count of segments (20) or a total size (2GiB)", v)
	}
	return 0, b, nil
}

// ParseSize parses a size with an optional unit: B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (of 1024).
func ParseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a whole number of B, KB, MB, GB, KiB, MiB or GiB", v)
	}
	return n * mult, nil
}

// Metadata is the metadata every recording of a process starts with: the caller's entries plus host and
// toolkit version.
func Metadata(extra map[string]string) map[string]string {
	host, _ := os.Hostname()
	md := map[string]string{"host": host, "version": BuildVersion()}
	for k, v := range extra {
		md[k] = v
	}
	return md
}

// BuildVersion is the toolkit's module version and VCS revision, for a recording's metadata.
func BuildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, st := range bi.Settings {
		if st.Key == "vcs.revision" {
			v += " " + st.Value
		}
	}
	return v
}
