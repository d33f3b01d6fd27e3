package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/internal/pty"
	"github.com/rosorin/rosorin/serialport"
)

// pipe is a non-blocking pipe under Go's poller, as the supervisor makes them (both ends wrapped).
func pipe(t *testing.T) (r, w *File) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	rf, wf := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	t.Cleanup(func() { rf.Close(); wf.Close() })
	var err error
	if r, err = NewFile(rf); err != nil {
		t.Fatal(err)
	}
	if w, err = NewFile(wf); err != nil {
		t.Fatal(err)
	}
	return r, w
}

func TestReadWaitsThenReads(t *testing.T) {
	r, w := pipe(t)
	go func() {
		time.Sleep(50 * time.Millisecond) // the read finds EAGAIN first and waits on the poller
		_, _ = w.Write([]byte("frame"))
	}()
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "frame" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if n, err := r.Read(nil); n != 0 || err != nil {
		t.Errorf("empty read: %d %v", n, err)
	}
	w.Close()
	if n, err := r.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("after the writer closed: %d %v, want io.EOF", n, err)
	}
}

func TestReadDeadlineAndClose(t *testing.T) {
	r, _ := pipe(t)
	buf := make([]byte, 8)
	if err := r.SetReadDeadline(time.Now().Add(30 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if err := r.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := r.Read(buf); done <- err }()
	time.Sleep(30 * time.Millisecond)
	r.Close()
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("read during Close: %v, want os.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a waiting read")
	}
}

// TestWriteWaitsForRoom: a write larger than the pipe's room goes out whole once the reader drains it, in order;
// a write deadline ends a write that finds no room; a write with no reader is EPIPE.
func TestWriteWaitsForRoom(t *testing.T) {
	r, w := pipe(t)
	msg := bytes.Repeat([]byte("0123456789abcdef"), 70000/16) // more than the pipe's 64 KiB
	got := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, 4096)
		for len(all) < len(msg) {
			time.Sleep(time.Millisecond)
			n, err := r.Read(buf)
			if err != nil {
				break
			}
			all = append(all, buf[:n]...)
		}
		got <- all
	}()
	if n, err := w.Write(msg); n != len(msg) || err != nil {
		t.Fatalf("write: %d of %d, %v", n, len(msg), err)
	}
	if all := <-got; !bytes.Equal(all, msg) {
		t.Fatalf("read %d bytes, not the %d written in order", len(all), len(msg))
	}

	r2, w2 := pipe(t)
	if err := w2.SetWriteDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	n, err := w2.Write(msg)
	if !errors.Is(err, os.ErrDeadlineExceeded) || n == 0 || n >= len(msg) {
		t.Errorf("a full pipe past the deadline: %d of %d, %v", n, len(msg), err)
	}
	r2.Close()
	if err := w2.SetWriteDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("no reader: %v, want EPIPE", err)
	}
}

func TestNewFileRefusesBlocking(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	rf, wf := os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	defer rf.Close()
	defer wf.Close()
	if _, err := NewFile(rf); !errors.Is(err, ErrBlocking) {
		t.Errorf("a blocking pipe: %v, want ErrBlocking", err)
	}
}

// TestTTY reads and writes a tty opened as the driver opens the board (serialport: raw, non-blocking).
func TestTTY(t *testing.T) {
	link := filepath.Join(t.TempDir(), "board")
	p, err := pty.Open(link, serialport.BoardBaud)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer p.Close()
	f, err := serialport.OpenBoard(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tty, err := NewFile(f)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(20 * time.Millisecond)
		_, _ = p.TryWrite([]byte{0xAA, 0x55, 1, 2})
	}()
	buf := make([]byte, 16)
	var got []byte
	for len(got) < 4 {
		n, err := tty.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, []byte{0xAA, 0x55, 1, 2}) {
		t.Errorf("read % x", got)
	}
	if n, err := tty.Write([]byte{0xAA, 0x55, 3}); n != 3 || err != nil {
		t.Errorf("write: %d %v", n, err)
	}
}
