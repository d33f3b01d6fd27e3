package mcapfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// record writes n raw messages of 16 bytes on two channels and one Imu, 1 ms apart, and returns the path.
func record(t testing.TB, dir string, n int, finish bool) string {
	t.Helper()
	path := filepath.Join(dir, "run.mcap")
	r, err := Create(path, Options{Metadata: map[string]string{"device": "/dev/null", "baud": "1000000"}, NoFinish: !finish})
	if err != nil {
		t.Fatal(err)
	}
	rx, err := r.RawChannel("/serial/board/rx", "board")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := r.RawChannel("/serial/board/tx", "board")
	if err != nil {
		t.Fatal(err)
	}
	imu, err := r.MessageChannel("/imu", "sensor_msgs/msg/Imu")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0)
	data := bytes.Repeat([]byte{0xAA}, 16)
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i) * time.Millisecond)
		if err := r.Write(rx, ts, data); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := r.Write(tx, ts, data[:8]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := r.WriteMessage(imu, t0, &rosmsg.Imu{}); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if !finish {
		return r.PartPath()
	}
	return path
}

func TestCleanCloseIsIndexedWithStatistics(t *testing.T) {
	dir := t.TempDir()
	path := record(t, dir, 1000, true)
	if _, err := os.Stat(path + PartSuffix); !os.IsNotExist(err) {
		t.Fatalf(".part left after a clean close: %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := mcap.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	info, err := rd.Info()
	if err != nil {
		t.Fatalf("indexed reader: %v", err)
	}
	if info.Statistics == nil || info.Statistics.MessageCount != 1501 {
		t.Fatalf("statistics %+v, want 1501 messages", info.Statistics)
	}
	if len(info.ChunkIndexes) == 0 || len(info.ChunkIndexes[0].MessageIndexOffsets) != 3 {
		t.Fatalf("chunk indexes %+v: want message indexes for 3 channels", info.ChunkIndexes)
	}
	if info.Header.Profile != "ros2" || len(info.Schemas) != 2 {
		t.Fatalf("header %+v, schemas %d", info.Header, len(info.Schemas))
	}
	for _, c := range info.Channels {
		if c.Metadata["offered_qos_profiles"] == "" {
			t.Fatalf("channel %s has no offered_qos_profiles", c.Topic)
		}
	}
	it, err := rd.Messages(mcap.UsingIndex(true))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		_, _, _, err := it.NextInto(nil)
		if err != nil {
			break
		}
		n++
	}
	if n != 1501 {
		t.Fatalf("indexed read %d messages, want 1501", n)
	}
	d, err := DescribeFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Ended != EndClean || d.Messages != 1501 || len(d.Channels) != 3 || d.Channels[0].Bytes != 16000 ||
		d.Channels[0].SeqGaps != 0 || d.Duration() != 999*time.Millisecond {
		t.Fatalf("describe: %+v, channel 0 %+v", d, d.Channels[0])
	}
}

// TestCutAtEveryOffset cuts a small unfinished recording at every byte offset: Describe and Rewrite never
// fail on it, lose only what was behind the cut, and the rewritten file opens with the indexed reader.
func TestCutAtEveryOffset(t *testing.T) {
	dir := t.TempDir()
	part := record(t, dir, 40, false)
	data, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	prev := uint64(0)
	for cut := 0; cut <= len(data); cut++ {
		in := data[:cut]
		d, err := Describe(bytes.NewReader(in), int64(cut), time.Millisecond)
		if cut < len(mcap.Magic) {
			if err == nil {
				t.Fatalf("cut %d: no error for a file shorter than the magic", cut)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if d.Messages < prev {
			t.Fatalf("cut %d: %d messages, fewer than the shorter cut's %d", cut, d.Messages, prev)
		}
		prev = d.Messages
		var out bytes.Buffer
		rep, err := Rewrite(bytes.NewReader(in), int64(cut), &out)
		if err != nil {
			t.Fatalf("cut %d: rewrite: %v", cut, err)
		}
		if rep.Messages != d.Messages || rep.KeptBytes+rep.DroppedBytes != int64(cut) {
			t.Fatalf("cut %d: report %+v, describe %d messages", cut, rep, d.Messages)
		}
		rd, err := mcap.NewReader(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if _, err := rd.Info(); err != nil {
			t.Fatalf("cut %d: rewritten file not indexed: %v", cut, err)
		}
		want := EndRecovered
		if cut == len(data) {
			want = EndClean
		}
		if d2, _ := Describe(bytes.NewReader(out.Bytes()), int64(out.Len()), 0); d2 == nil || d2.Ended != want || d2.Messages != d.Messages {
			t.Fatalf("cut %d: rewritten file %+v, want ended %s", cut, d2, want)
		}
	}
	if prev != 61 {
		t.Fatalf("whole file: %d messages, want 61", prev)
	}
}

// TestWriteErrorStopsRecording: once the file cannot be written (a full disk; here its descriptor is
// closed under the recorder) every call returns the error at once and Close keeps the .part file.
func TestWriteErrorStopsRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "full.mcap")
	r, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := r.RawChannel("/serial/board/rx", "board")
	if err != nil {
		t.Fatal(err)
	}
	r.f.Close()
	data := make([]byte, 1024)
	var werr error
	for i := 0; i < 200 && werr == nil; i++ { // 200 KiB: more than the buffer, so a write reaches the file
		werr = r.Write(ch, time.Now(), data)
	}
	if werr == nil || r.Err() == nil {
		t.Fatal("writes into a closed file did not fail")
	}
	start := time.Now()
	if err := r.Write(ch, time.Now(), data); err == nil || time.Since(start) > testkit.Bound(10*time.Millisecond) {
		t.Fatalf("write after the failure: %v after %s", err, time.Since(start))
	}
	if err := r.Close(); err == nil {
		t.Fatal("Close reported success on a failed recording")
	}
	if _, err := os.Stat(r.PartPath()); err != nil {
		t.Fatalf(".part not kept: %v", err)
	}
}

// TestCutFinishedFileSalvagesChunk cuts a finished (chunked) file at many offsets: the complete records of
// the cut uncompressed chunk are still read, so the count only grows with the cut, and Rewrite keeps them.
func TestCutFinishedFileSalvagesChunk(t *testing.T) {
	path := record(t, t.TempDir(), 1000, true)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	prev := uint64(0)
	salvaged := 0
	for cut := 8; cut < len(data); cut += 97 {
		d, err := Describe(bytes.NewReader(data[:cut]), int64(cut), 0)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if d.Messages < prev {
			t.Fatalf("cut %d: %d messages, fewer than a shorter cut's %d", cut, d.Messages, prev)
		}
		prev = d.Messages
		var out bytes.Buffer
		rep, err := Rewrite(bytes.NewReader(data[:cut]), int64(cut), &out)
		if err != nil || rep.Messages != d.Messages {
			t.Fatalf("cut %d: rewrite %+v, %v; describe %d", cut, rep, err, d.Messages)
		}
		if rep.Messages > 0 {
			salvaged++
		}
	}
	if prev < 1400 || salvaged == 0 {
		t.Fatalf("the longest cut read %d of 1501 messages; %d cuts salvaged any", prev, salvaged)
	}
}

// A message of another type than its channel's schema is refused (a reader would misread it), and so is a
// message on a raw channel; the recording goes on.
func TestWriteMessageRefusesWrongType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.mcap")
	r, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	imu, err := r.MessageChannel("/imu", "sensor_msgs/msg/Imu")
	if err != nil {
		t.Fatal(err)
	}
	rx, err := r.RawChannel("/serial/board/rx", "board")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0)
	if err := r.WriteMessage(imu, t0, &rosmsg.BatteryState{}); !errors.Is(err, ErrWrongType) ||
		!strings.Contains(err.Error(), "sensor_msgs/msg/BatteryState on /imu (sensor_msgs/msg/Imu)") {
		t.Fatalf("battery on /imu: %v, want ErrWrongType naming both types", err)
	}
	if err := r.WriteMessage(rx, t0, &rosmsg.Imu{}); !errors.Is(err, ErrWrongType) {
		t.Fatalf("a message on a raw channel: %v, want ErrWrongType", err)
	}
	if err := r.WriteMessage(imu, t0, &rosmsg.Imu{}); err != nil {
		t.Fatalf("the right type after a refusal: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := DescribeFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if info.Messages != 1 {
		t.Fatalf("%d messages recorded, want the one of the right type", info.Messages)
	}
}
