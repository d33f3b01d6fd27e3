package mcapfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRecordSmallWrites records 16-byte reads (a board frame or less per read, the worst case of a
// 1,000,000 baud stream: 100 kB/s is 6250 such reads a second) into a real file, flusher running.
func BenchmarkRecordSmallWrites(b *testing.B) {
	r, err := Create(filepath.Join(b.TempDir(), "bench.mcap"), Options{NoFinish: true})
	if err != nil {
		b.Fatal(err)
	}
	ch, err := r.RawChannel("/serial/board/rx", "board")
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte{0x55}, 16)
	t0 := time.Now()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.Write(ch, t0.Add(time.Duration(i)), data); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRewrite finishes (or recovers) a .part file of 100,000 16-byte messages; bytes/s of input.
func BenchmarkRewrite(b *testing.B) {
	part := record(b, b.TempDir(), 100000, false)
	data, err := os.ReadFile(part)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Rewrite(bytes.NewReader(data), int64(len(data)), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
