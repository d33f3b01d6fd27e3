package pty

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
)

func waitClients(t *testing.T, p *PTY, want int) {
	t.Helper()
	if err := testkit.Eventually(testkit.Bound(2*time.Second), func() error {
		if n := p.Clients(); n != want {
			return fmt.Errorf("%d clients counted, want %d", n, want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPTY: the link points at the slave, opens and closes are counted, what a client writes is read on
// Master and what TryWrite sends reaches it, a full pty refuses instead of blocking, and Close removes the
// link (only if it is still ours) and may be called twice.
func TestPTY(t *testing.T) {
	link := filepath.Join(t.TempDir(), "ttyACM0")
	p, err := Open(link, 115200)
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer p.Close()
	if target, err := os.Readlink(link); err != nil || target != p.SlaveName {
		t.Fatalf("link -> %q, %v; want %s", target, err, p.SlaveName)
	}
	if n := p.Clients(); n != 0 {
		t.Fatalf("clients %d before any open", n)
	}
	c, err := os.OpenFile(link, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	waitClients(t, p, 1)
	if _, err := c.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 2)
	if _, err := io.ReadFull(p.Master, got); err != nil || string(got) != "hi" {
		t.Fatalf("master read %q, %v", got, err)
	}
	if n, err := p.TryWrite([]byte("ok")); n != 2 || err != nil {
		t.Fatalf("TryWrite: %d, %v", n, err)
	}
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "ok" {
		t.Fatalf("client read %q, %v", got, err)
	}
	// Nobody reads the client side: the pty fills and TryWrite refuses without waiting.
	chunk := bytes.Repeat([]byte{0x55}, 4096)
	t0 := time.Now()
	short := false
	for i := 0; i < 1024 && !short; i++ {
		n, err := p.TryWrite(chunk)
		short = err != nil || n < len(chunk)
	}
	if !short {
		t.Fatal("4 MiB went into a pty nobody reads: TryWrite never reported it full")
	}
	if d := time.Since(t0); d > testkit.Bound(time.Second) {
		t.Errorf("filling the pty took %v: TryWrite waited for room", d)
	}
	c.Close()
	waitClients(t, p, 0)
	p.Close()
	p.Close()
	if _, err := os.Lstat(link); !os.IsNotExist(err) {
		t.Errorf("link still there after Close: %v", err)
	}
}

// TestPTYCloseKeepsForeignLink: a link re-pointed by someone else (a newer pty) survives this one's Close.
func TestPTYCloseKeepsForeignLink(t *testing.T) {
	link := filepath.Join(t.TempDir(), "lidar")
	a, err := Open(link, 230400)
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	b, err := Open(link, 230400)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	a.Close()
	if target, err := os.Readlink(link); err != nil || target != b.SlaveName {
		t.Fatalf("after the old pty's Close the link -> %q, %v; want the new %s", target, err, b.SlaveName)
	}
}
