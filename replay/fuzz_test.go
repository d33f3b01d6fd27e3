package replay

import (
	"bytes"
	"os"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// FuzzScan: Scan and Each never panic on any input; on a file Scan accepts, Each hands out exactly the
// messages and bytes Scan counted (both read the same records), and Scan's good prefix is within the input.
func FuzzScan(f *testing.F) {
	path, _ := synthetic(f, 30)
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(data[:len(data)/3])
	f.Add([]byte{})
	f.Add(append([]byte{}, mcap.Magic...))
	f.Fuzz(func(t *testing.T, in []byte) {
		rec, err := Scan(bytes.NewReader(in), int64(len(in)))
		var msgs, nbytes uint64
		eerr := Each(bytes.NewReader(in), func(m Message) error {
			msgs++
			nbytes += uint64(len(m.Data))
			return nil
		})
		if err != nil {
			return
		}
		if eerr != nil {
			t.Fatalf("Scan accepted the input, Each failed: %v", eerr)
		}
		var want, wantB uint64
		for _, s := range rec.Streams {
			want += s.Messages
			wantB += s.Bytes
		}
		if msgs != want || nbytes != wantB || rec.Good > int64(len(in)) {
			t.Fatalf("Each %d messages %d bytes, Scan %d / %d, good %d of %d", msgs, nbytes, want, wantB, rec.Good, len(in))
		}
	})
}
