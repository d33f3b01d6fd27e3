package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/board"
)

// mcapCapture records frames on /serial/board/rx, split at odd places, and returns the .part file's bytes
// and the number of frames.
func mcapCapture(tb testing.TB, n int) ([]byte, int) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "m.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{NoFinish: true})
	if err != nil {
		tb.Fatal(err)
	}
	ch, err := r.RawChannel("/serial/board/rx", "board")
	if err != nil {
		tb.Fatal(err)
	}
	var stream []byte
	for i := 0; i < n; i++ {
		stream = append(stream, board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, float32(i)}})...)
		stream = append(stream, board.EncodeBattery(board.Battery{MilliVolts: 7400})...)
	}
	t0 := time.Unix(1_700_000_000, 0)
	for off, i := 0, 0; off < len(stream); i++ {
		end := min(len(stream), off+7+i%23)
		if err := r.Write(ch, t0.Add(time.Duration(i)*time.Millisecond), stream[off:end]); err != nil {
			tb.Fatal(err)
		}
		off = end
	}
	if err := r.Close(); err != nil {
		tb.Fatal(err)
	}
	data, err := readAll(r.PartPath())
	if err != nil {
		tb.Fatal(err)
	}
	return data, 2 * n
}

func TestWriteMCAPJSON(t *testing.T) {
	data, frames := mcapCapture(t, 50)
	var out bytes.Buffer
	if err := WriteMCAPJSON(&out, bytes.NewReader(data), "m", false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != frames+1 {
		t.Fatalf("%d lines, want %d frames + a summary", len(lines), frames)
	}
	var first, last map[string]any
	if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil {
		t.Fatalf("not JSON: %s / %s", lines[0], lines[len(lines)-1])
	}
	if first["topic"] != "/serial/board/rx" || first["func"] != "imu" || last["kind"] != "summary" ||
		last["frames"] != float64(frames) || last["skipped_bytes"] != float64(0) || last["cut"] != nil {
		t.Fatalf("first %v, summary %v", first, last)
	}
	// Cut in the middle: a partial decode with the reason, never an error.
	out.Reset()
	if err := WriteMCAPJSON(&out, bytes.NewReader(data[:len(data)/2]), "m", true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"cut":`) || !strings.Contains(out.String(), `"kind":"summary"`) {
		t.Fatalf("cut file: %s", out.String())
	}
}

func FuzzWriteMCAPJSON(f *testing.F) {
	data, _ := mcapCapture(f, 5)
	f.Add(data)
	f.Add(data[:len(data)-3])
	f.Fuzz(func(t *testing.T, in []byte) {
		_ = WriteMCAPJSON(io.Discard, bytes.NewReader(in), "fuzz", false)
	})
}

// BenchmarkDecodeMCAP decodes a capture of 20,000 frames to JSON lines; bytes/s of the MCAP file.
func BenchmarkDecodeMCAP(b *testing.B) {
	data, _ := mcapCapture(b, 10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := WriteMCAPJSON(bufio.NewWriter(io.Discard), bytes.NewReader(data), "b", false); err != nil {
			b.Fatal(err)
		}
	}
}

func readAll(name string) ([]byte, error) {
	f, err := OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
