package mcaptest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
)

// fakeT records what a helper reports instead of failing the real test.
type fakeT struct {
	testing.TB
	errors int
	fatal  bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.errors++ }
func (f *fakeT) Fatal(...any)          { f.fatal = true; panic(f) }

// TestMessages: counts and bytes per topic of a file written here; a file that is not there fails the test.
func TestMessages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.mcap")
	rec, err := mcapfile.Create(path, mcapfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := rec.RawChannel("/serial/board/rx", "board")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := rec.Write(ch, time.Now(), []byte{0xaa, 0x55}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	f := &fakeT{TB: t}
	info, got := Messages(f, path)
	if f.errors != 0 || info.Ended != mcapfile.EndClean || len(got) != 1 || got["/serial/board/rx"] != 3 {
		t.Fatalf("errors %d, ended %s, messages %v", f.errors, info.Ended, got)
	}
	if b := Bytes(f, path); f.errors != 0 || len(b) != 1 || b["/serial/board/rx"] != 6 {
		t.Fatalf("errors %d, bytes %v", f.errors, b)
	}
	f = &fakeT{TB: t}
	func() {
		defer func() { _ = recover() }()
		Messages(f, filepath.Join(t.TempDir(), "missing.mcap"))
	}()
	if !f.fatal {
		t.Error("a missing file did not fail the test")
	}
}
