package supervisor

import (
	"bytes"
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestPipeFeed: the pump's write into a real driver pipe never waits: with nobody reading, whole chunks go in
// until the pipe is full, then errFeedFull, and what went in comes out whole and in order; once the driver's
// end is closed a write fails with EPIPE (not "full"), and after Close it fails without touching the fd.
func TestPipeFeed(t *testing.T) {
	childEnd, w, err := boardPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(childEnd), "driver-end")
	defer r.Close()
	feed, err := newPipeFeed(w)
	if err != nil {
		t.Fatal(err)
	}
	chunk := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, maxChunk-1) }
	n := 0
	for ; n < 1000; n++ {
		err := feed.tryWrite(chunk(n))
		if errors.Is(err, errFeedFull) {
			break
		}
		if err != nil {
			t.Fatalf("write %d: %v", n, err)
		}
	}
	if n == 0 || n == 1000 {
		t.Fatalf("%d chunks went in before the pipe was full; want some, then full", n)
	}
	buf := make([]byte, maxChunk-1)
	for i := 0; i < n; i++ {
		if _, err := r.Read(buf); err != nil {
			t.Fatalf("read chunk %d: %v", i, err)
		}
		if !bytes.Equal(buf, chunk(i)) {
			t.Fatalf("chunk %d came out as % x..., want %02x...", i, buf[:4], byte(i))
		}
	}
	if err := feed.tryWrite(chunk(0)); err != nil {
		t.Fatalf("after the reader drained the pipe: %v", err)
	}
	r.Close()
	if err := feed.tryWrite(chunk(1)); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("with the driver's end closed: %v, want EPIPE", err)
	}
	if err := feed.Close(); err != nil {
		t.Fatal(err)
	}
	if err := feed.tryWrite(chunk(2)); err == nil || errors.Is(err, errFeedFull) {
		t.Fatalf("after Close: %v, want an error that is not \"full\"", err)
	}
}
