package boardtest_test

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// TestPTYBoard: behind a real pty, bytes emitted before the host opens the device wait for it (no flush by
// the fake), the host's writes arrive parsed and as a byte stream, and HangUp removes the device and hangs up
// the host's tty.
func TestPTYBoard(t *testing.T) {
	b := boardtest.OpenPTY(t, boardtest.Options{})
	if err := b.Emit(imu, battery); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the pty moves the bytes to the slave's queue asynchronously
	host, err := os.OpenFile(b.Path(), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	host.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(imu)+len(battery))
	if _, err := io.ReadFull(host, got); err != nil || !bytes.Equal(got, boardtest.Frames(imu, battery)) {
		t.Fatalf("host read % x, %v", got, err)
	}
	stop := board.StopFrame()
	if _, err := host.Write(stop); err != nil {
		t.Fatal(err)
	}
	r, _, ok := b.Wait(0, 5*time.Second, boardtest.Received.IsStop)
	if !ok || !r.Stopped() || r.At.IsZero() {
		t.Fatalf("no stop frame received: %+v", r)
	}
	h := b.Master()
	h.SetReadDeadline(time.Now().Add(5 * time.Second))
	back := make([]byte, len(stop))
	if _, err := io.ReadFull(h, back); err != nil || !bytes.Equal(back, stop) {
		t.Fatalf("host bytes % x, %v", back, err)
	}
	if b.TTY() == nil || b.SlaveName() == "" {
		t.Fatal("no tty")
	}
	b.HangUp()
	if _, err := os.Lstat(b.Path()); !os.IsNotExist(err) {
		t.Fatalf("device path after HangUp: %v", err)
	}
	host.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := host.Read(got); err == nil {
		t.Fatalf("host read %d bytes after the hang-up", n)
	}
	if err := b.Emit(imu); err == nil {
		t.Fatal("Emit after HangUp succeeded")
	}
}
