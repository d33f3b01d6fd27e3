package segment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Now and Sleep make it a clock.Clock (SegmentOptions.Clock); Sleep moves it on at once.
func (c *fakeClock) Now() time.Time { return c.now() }
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.add(d)
	return ctx.Err()
}
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var rotateSpecs = []ChannelSpec{Raw(capture.Board, capture.FromDevice), Message("/imu", (*rosmsg.Imu)(nil))}

func segFiles(t *testing.T, dir, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(m)
	return m
}

// countMessages reads every finished segment back and sums the raw messages.
func countMessages(t *testing.T, files []string) uint64 {
	t.Helper()
	var n uint64
	for _, f := range files {
		info, err := mcapfile.DescribeFile(f, 0)
		if err != nil {
			t.Fatal(err)
		}
		if info.Ended != "clean" {
			t.Errorf("%s ended %q, want clean", f, info.Ended)
		}
		for _, c := range info.Channels {
			if c.Topic == "/serial/board/rx" {
				n += c.Messages
			}
		}
	}
	return n
}

func TestSegmentsRotateBySizeAndTime(t *testing.T) {
	dir := t.TempDir()
	clk := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	s, err := OpenSegments(SegmentOptions{Dir: dir, Prefix: "board", RotateSize: 4000, RotateTime: time.Minute,
		Metadata: Metadata(map[string]string{"device": "/dev/ttyACM0"}), Clock: clk}, rotateSpecs)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 100)
	// 100 writes of ~143 bytes: about 14 KB, so 3 rotations by size.
	for i := 0; i < 100; i++ {
		clk.add(time.Millisecond)
		if err := s.Write(0, clk.now(), data); err != nil {
			t.Fatal(err)
		}
	}
	// Then an hour-old segment: one rotation by time at the next write.
	clk.add(2 * time.Minute)
	if err := s.Write(0, clk.now(), data); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files := segFiles(t, dir, "board-*.mcap")
	if len(files) != st.Segments || st.Segments != 5 {
		t.Fatalf("segments: stats %d, files %v; want 5 (4 by size, 1 by time)", st.Segments, files)
	}
	if parts := segFiles(t, dir, "*.part"); len(parts) != 0 {
		t.Fatalf("left .part files: %v", parts)
	}
	if n := countMessages(t, files); n != 101 {
		t.Fatalf("read back %d messages, wrote 101", n)
	}
	if !strings.HasPrefix(filepath.Base(files[0]), "board-20261201T120000.000Z") {
		t.Errorf("first segment named %s, want board-<UTC time of its start>.mcap", files[0])
	}
	info, _ := mcapfile.DescribeFile(files[0], 0)
	if len(info.Metadata) == 0 || info.Metadata[0].Metadata["device"] != "/dev/ttyACM0" || info.Metadata[0].Metadata["version"] == "" {
		t.Errorf("metadata %+v, want device and version", info.Metadata)
	}
}

func TestSegmentsRetention(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files int
		bytes int64
		want  int
	}{{"count", 2, 0, 2}, {"bytes", 0, 18000, 2}, {"none", 0, 0, 6}} {
		// a finished segment here is about 7.5 kB (2000 payload bytes plus the Imu schema, channels, index, statistics
		// and the rosbag2 metadata record): two fit in 18000 bytes, three do not
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			clk := &fakeClock{t: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
			s, err := OpenSegments(SegmentOptions{Dir: dir, Prefix: "board", RotateTime: time.Second,
				KeepFiles: tc.files, KeepBytes: tc.bytes, Clock: clk}, rotateSpecs)
			if err != nil {
				t.Fatal(err)
			}
			// A file of another process in the same directory is not this one's to delete.
			other := filepath.Join(dir, "lidar-20200101T000000.000Z.mcap")
			if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			data := make([]byte, 2000)
			for i := 0; i < 6; i++ {
				if err := s.Write(0, clk.now(), data); err != nil {
					t.Fatal(err)
				}
				clk.add(1500 * time.Millisecond)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			files := segFiles(t, dir, "board-*.mcap")
			if len(files) != tc.want {
				var sizes []int64
				for _, f := range files {
					fi, _ := os.Stat(f)
					sizes = append(sizes, fi.Size())
				}
				t.Fatalf("kept %d segments %v (sizes %v), want %d", len(files), files, sizes, tc.want)
			}
			if tc.want < 6 && !strings.Contains(files[len(files)-1], "T120007.500Z") {
				t.Errorf("kept %v: the newest (12:00:07.5) must stay", files)
			}
			if _, err := os.Stat(other); err != nil {
				t.Errorf("retention deleted another prefix's file: %v", err)
			}
		})
	}
}

// A .part a SIGKILLed run left (here: a recording never closed) is recovered at the next start.
func TestSegmentsRecoverLeftovers(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "board-20261201T110000.000Z.mcap")
	rec, err := mcapfile.Create(old, mcapfile.Options{NoFinish: true})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := rec.RawChannel("/serial/board/rx", "board")
	for i := 0; i < 50; i++ {
		if err := rec.Write(ch, time.Unix(0, int64(i)*1e6), []byte{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil { // NoFinish: the .part stays, as after a kill
		t.Fatal(err)
	}
	// Cut it mid-record, as a kill between two flushes would.
	part := old + mcapfile.PartSuffix
	fi, _ := os.Stat(part)
	if err := os.Truncate(part, fi.Size()-7); err != nil {
		t.Fatal(err)
	}
	s, err := OpenSegments(SegmentOptions{Dir: dir, Prefix: "board"}, rotateSpecs)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Recovered != 1 {
		t.Fatalf("recovered %d leftovers, want 1", st.Recovered)
	}
	if _, err := os.Stat(part); err == nil {
		t.Fatal("the leftover .part is still there")
	}
	info, err := mcapfile.DescribeFile(old, 0)
	if err != nil {
		t.Fatal(err)
	}
	if info.Ended != "recovered" || info.Messages < 48 {
		t.Fatalf("recovered file ended %q with %d messages, want recovered and 49", info.Ended, info.Messages)
	}
}

func TestParseKeepAndSize(t *testing.T) {
	for _, tc := range []struct {
		in    string
		files int
		bytes int64
		bad   bool
	}{{"20", 20, 0, false}, {"2GiB", 0, 2 << 30, false}, {"500MB", 0, 500e6, false}, {"64 MiB", 0, 64 << 20, false},
		{"", 0, 0, false}, {"-1", 0, 0, true}, {"lots", 0, 0, true}, {"1.5GiB", 0, 0, true}, {"-3MiB", 0, 0, true}} {
		f, b, err := ParseKeep(tc.in)
		if (err != nil) != tc.bad || f != tc.files || b != tc.bytes {
			t.Errorf("ParseKeep(%q) = %d, %d, %v; want %d, %d, bad=%v", tc.in, f, b, err, tc.files, tc.bytes, tc.bad)
		}
	}
	if _, err := OpenSegments(SegmentOptions{Dir: t.TempDir(), Prefix: "a-b"}, nil); err == nil {
		t.Error("a prefix with - was taken (names would not parse)")
	}
}

// faultyDisk is a segment writer whose writes block until released (a disk that stalls) or fail after a
// number of them (a disk that fills up).
type faultyDisk struct {
	mu       sync.Mutex
	writes   int
	failAt   int // 0: never
	block    chan struct{}
	closed   bool
	messages int
}

func (d *faultyDisk) Write(ch int, t time.Time, data []byte) error {
	if d.block != nil {
		<-d.block
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.writes++
	if d.failAt > 0 && d.writes >= d.failAt {
		return errors.New("write board.mcap.part: no space left on device")
	}
	return nil
}
func (d *faultyDisk) WriteMessage(ch int, t time.Time, m rosmsg.Message) error {
	d.mu.Lock()
	d.messages++
	d.mu.Unlock()
	return nil
}
func (d *faultyDisk) Stats() SegmentStats { return SegmentStats{Current: "x.mcap"} }
func (d *faultyDisk) Close() error        { d.closed = true; return nil }

// A stalled disk never makes Put wait: the queue fills, then drops and counts.
func TestQueueNeverBlocks(t *testing.T) {
	disk := &faultyDisk{block: make(chan struct{})}
	q := StartQueue(QueueOptions{Len: 64, open: func() (segmentWriter, error) { return disk, nil }})
	start := time.Now()
	var worst time.Duration
	for i := 0; i < 10000; i++ {
		t0 := time.Now()
		q.Put(0, t0, []byte{1})
		worst = max(worst, time.Since(t0))
	}
	took := time.Since(start)
	if st := q.Status(); st.Dropped < 10000-65 || !st.Recording {
		t.Fatalf("status %+v: want about 9935 dropped and still recording", st)
	}
	// Generous: a Put is a mutex and a non-blocking send (~50 ns); a blocked one would be stuck forever.
	if worst > testkit.Bound(50*time.Millisecond) {
		t.Fatalf("worst Put took %v (10000 in %v)", worst, took)
	}
	t.Logf("10000 Puts against a stalled disk in %v, worst %v", took, worst)
	close(disk.block)
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if !disk.closed {
		t.Fatal("Close did not close the segments")
	}
}

// A full disk stops recording once, loudly, and the caller keeps running.
func TestQueueStopsOnFullDisk(t *testing.T) {
	disk := &faultyDisk{failAt: 5}
	var stops []error
	var mu sync.Mutex
	q := StartQueue(QueueOptions{open: func() (segmentWriter, error) { return disk, nil },
		OnStop:   func(err error) { mu.Lock(); stops = append(stops, err); mu.Unlock() },
		Channels: []ChannelSpec{Raw(capture.Board, capture.FromDevice)}})
	for i := 0; i < 100; i++ {
		q.Put(0, time.Now(), board.EncodeIMU(board.IMU{})) // one raw write and its decoded messages each
	}
	_ = testkit.Eventually(5*time.Second, func() error {
		if q.Status().Recording {
			return errors.New("still recording")
		}
		return nil
	}) // the status below says what went wrong
	st := q.Status()
	if st.Recording || !strings.Contains(st.Error, "no space left") {
		t.Fatalf("status %+v: want recording false with the error", st)
	}
	err := q.Close()
	if err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("Close: %v, want the disk's error", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stops) != 1 {
		t.Fatalf("OnStop called %d times, want once", len(stops))
	}
	perIMU := len(decodeAlone(t, capture.Board, capture.FromDevice, board.EncodeIMU(board.IMU{})))
	if disk.writes != 5 || disk.messages != 4*perIMU {
		t.Fatalf("%d writes and %d decoded messages reached the disk, want 5 and %d (nothing after the error)", disk.writes, disk.messages, 4*perIMU)
	}
	if q.Put(0, time.Now(), nil) {
		t.Fatal("Put after Close was taken")
	}
}

// BenchmarkQueuePut: the cost a port's goroutine pays per read or write recorded (a board frame, 27 bytes),
// with the real segments on disk behind the queue; "dropped/op" says whether the writer kept up.
func BenchmarkQueuePut(b *testing.B) {
	q := StartQueue(QueueOptions{Segments: SegmentOptions{Dir: b.TempDir(), Prefix: "board"}, Channels: rotateSpecs})
	data := make([]byte, 27)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.Put(0, time.Now(), data)
	}
	b.StopTimer()
	dropped := q.Status().Dropped
	if err := q.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(dropped)/float64(b.N), "dropped/op")
}

// TestQueuePutMessage: decoded messages queued by the producer reach the disk in order with the raw ones.
func TestQueuePutMessage(t *testing.T) {
	disk := &faultyDisk{}
	q := StartQueue(QueueOptions{open: func() (segmentWriter, error) { return disk, nil }})
	q.Put(0, time.Now(), []byte{1})
	q.PutMessage(1, time.Now(), &rosmsg.String{Data: "{}"})
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if disk.writes != 1 || disk.messages != 1 {
		t.Fatalf("%d raw writes and %d messages, want 1 and 1", disk.writes, disk.messages)
	}
}

// msgDisk keeps the channel index and type of each decoded message.
type msgDisk struct {
	faultyDisk
	chans []int
	types []string
}

func (d *msgDisk) WriteMessage(ch int, t time.Time, m rosmsg.Message) error {
	d.chans, d.types = append(d.chans, ch), append(d.types, m.ROSType())
	return nil
}

// decodedMsg is a decoded message's topic and type.
type decodedMsg struct{ topic, typ string }

// topicSink keeps the topic and type of what a capture.Decoded writes.
type topicSink struct{ msgs []decodedMsg }

func (s *topicSink) WriteMessage(topic string, _ time.Time, m rosmsg.Message) error {
	s.msgs = append(s.msgs, decodedMsg{topic, m.ROSType()})
	return nil
}

// decodeAlone is what capture.Decoded makes of one read of a raw stream: the messages a queue must write
// for it, whatever decoded channels are registered.
func decodeAlone(t *testing.T, kind capture.Kind, dir capture.Direction, read []byte) []decodedMsg {
	t.Helper()
	var sink topicSink
	d, err := capture.NewDecodedTo(&sink, kind, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Feed(time.Now(), read); err != nil {
		t.Fatal(err)
	}
	return sink.msgs
}

// The queue decodes each raw channel into the decoded channels it added after the caller's (the board's rx
// into /imu, /battery, /joy, ..., its tx into /wheel_twist: whatever capture registers), each message on its
// own channel's index.
func TestQueueDecodesRawChannels(t *testing.T) {
	disk := &msgDisk{}
	specs := []ChannelSpec{Raw(capture.Board, capture.FromDevice), Raw(capture.Board, capture.ToDevice),
		Message("/rosorin/state", (*rosmsg.String)(nil))}
	q := StartQueue(QueueOptions{Channels: specs, open: func() (segmentWriter, error) { return disk, nil }})
	rx := append(board.EncodeIMU(board.IMU{}), board.EncodeBattery(board.Battery{MilliVolts: 7400})...)
	q.Put(0, time.Now(), rx)
	q.Put(1, time.Now(), board.StopFrame())
	q.PutMessage(2, time.Now(), &rosmsg.String{Data: "{}"})
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for i, sp := range q.specs {
		want[sp.Type+" "+sp.Topic] = i
	}
	fromRx := decodeAlone(t, capture.Board, capture.FromDevice, rx)
	fromTx := decodeAlone(t, capture.Board, capture.ToDevice, board.StopFrame())
	if len(fromRx) < 2 || len(fromTx) < 1 {
		t.Fatalf("capture decodes %v from the rx read and %v from the stop frame: want /imu, /battery and /wheel_twist at least", fromRx, fromTx)
	}
	msgs := append(append(slices.Clone(fromRx), fromTx...), decodedMsg{"/rosorin/state", "std_msgs/msg/String"})
	nChans := len(specs) + len(capture.DecodedChannels(capture.Board, capture.FromDevice)) + len(capture.DecodedChannels(capture.Board, capture.ToDevice))
	if len(disk.chans) != len(msgs) || len(q.specs) != nChans {
		t.Fatalf("decoded messages on channels %v (%v), want %v; specs %+v", disk.chans, disk.types, msgs, q.specs)
	}
	for i, m := range msgs {
		if ch, ok := want[m.typ+" "+m.topic]; !ok || ch != disk.chans[i] || disk.types[i] != m.typ {
			t.Fatalf("message %d (%s) on channel %d, want %s's %d; specs %+v", i, disk.types[i], disk.chans[i], m.topic, ch, q.specs)
		}
	}
	if d := q.Decoded(0); d == nil || d.Written != uint64(len(fromRx)) || q.Decoded(1).Written != uint64(len(fromTx)) || q.Decoded(2) != nil {
		t.Fatalf("decoders: rx %+v", d)
	}
}
