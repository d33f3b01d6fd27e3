package replay

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
)

// synthetic writes a board capture of n messages of 16 bytes (the index first), recorded at times i*7 ms
// plus a jitter of 0-2 ms, with tx, and returns the file and each message's offset from the first.
func synthetic(t testing.TB, n int) (string, []time.Duration) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "syn.mcap")
	rec, err := mcapfile.Create(path, mcapfile.Options{Metadata: map[string]string{"baud": "1000000"}})
	if err != nil {
		t.Fatal(err)
	}
	rx, err := rec.RawChannel(capture.RawTopic(capture.Board, capture.FromDevice), "board")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_800_000_000, 0)
	rel := make([]time.Duration, n)
	for i := 0; i < n; i++ {
		rel[i] = time.Duration(i)*7*time.Millisecond + time.Duration(i%3)*time.Millisecond
		b := make([]byte, 16)
		binary.LittleEndian.PutUint32(b, uint32(i))
		if err := rec.Write(rx, t0.Add(rel[i]), b); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return path, rel
}
