package mcapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// FuzzReaders: Describe and Rewrite never panic on any input, Rewrite's account covers every input byte, and
// whatever Rewrite writes opens with the indexed reader.
func FuzzReaders(f *testing.F) {
	dir := f.TempDir()
	part := record(f, filepath.Join(dir), 20, false)
	data, err := os.ReadFile(part)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	clean := record(f, f.TempDir(), 20, true)
	cdata, err := os.ReadFile(clean)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(cdata)
	f.Add([]byte{})
	f.Add(append(append([]byte{}, mcap.Magic...), 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, derr := Describe(bytes.NewReader(in), int64(len(in)), 1)
		var out bytes.Buffer
		rep, rerr := Rewrite(bytes.NewReader(in), int64(len(in)), &out)
		if (derr == nil) != (rerr == nil) {
			t.Fatalf("Describe %v, Rewrite %v", derr, rerr)
		}
		if rerr != nil {
			return
		}
		if rep.KeptBytes+rep.DroppedBytes != int64(len(in)) || rep.KeptBytes > int64(len(in)) {
			t.Fatalf("report %+v for %d bytes", rep, len(in))
		}
		if d.Messages < rep.Messages {
			t.Fatalf("Describe %d messages, Rewrite kept %d", d.Messages, rep.Messages)
		}
		rd, err := mcap.NewReader(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rd.Info(); err != nil {
			t.Fatalf("rewritten file: %v", err)
		}
	})
}
