//go:build ros2 && linux && cgo

package dds_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/ros2/sros2/sros2test"
)

// loopCapture records every frame on the loopback interface through an AF_PACKET socket (needs root or
// CAP_NET_RAW), until stop.
type loopCapture struct {
	fd     int
	mu     sync.Mutex
	frames [][]byte
	done   chan struct{}
	stopc  chan struct{}
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func startLoopCapture() (*loopCapture, error) {
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW, int(htons(syscall.ETH_P_ALL)))
	if err != nil {
		return nil, err
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	if err := syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(syscall.ETH_P_ALL), Ifindex: lo.Index}); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	tv := syscall.NsecToTimeval(int64(50 * time.Millisecond))
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	c := &loopCapture{fd: fd, done: make(chan struct{}), stopc: make(chan struct{})}
	go func() {
		defer close(c.done)
		buf := make([]byte, 65536+64)
		for {
			select {
			case <-c.stopc:
				return
			default:
			}
			n, _, err := syscall.Recvfrom(fd, buf, 0)
			if err != nil || n <= 0 {
				continue
			}
			c.mu.Lock()
			c.frames = append(c.frames, append([]byte(nil), buf[:n]...))
			c.mu.Unlock()
		}
	}()
	return c, nil
}

// stop ends the capture and returns the frames.
func (c *loopCapture) stop() [][]byte {
	close(c.stopc)
	<-c.done
	syscall.Close(c.fd)
	return c.frames
}

// TestSecureEncryptedOnWire: with SROS2's default governance (data and metadata ENCRYPT) a capture of the
// loopback traffic while an enrolled talker sends a random marker to an enrolled listener holds the marker in
// no frame; with a governance that only signs (the positive control, same capture code) it does.
func TestSecureEncryptedOnWire(t *testing.T) {
	needSecurity(t)
	probe, err := startLoopCapture()
	if err != nil {
		if os.Getenv("ROSORIN_REQUIRE_CYCLONE") == "1" && os.Geteuid() == 0 {
			t.Fatalf("capture on lo as root: %v", err)
		}
		t.Skipf("cannot capture loopback traffic (AF_PACKET needs root or CAP_NET_RAW): %v", err)
	}
	probe.stop()
	for _, c := range []struct {
		name      string
		gov       sros2test.Protection
		plaintext bool
	}{
		{"SROS2 default (ENCRYPT)", sros2test.SROS2Default, false},
		{"sign only (control)", sros2test.SignOnly, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(c.gov))
			if err != nil {
				t.Fatal(err)
			}
			dom := testDomain()
			if _, err := ks.Enclave("/talker", sros2test.Policy{Domain: dom, Publish: []string{"rt/chatter"}}, sros2test.EnclaveOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := ks.Enclave("/listener", sros2test.Policy{Domain: dom, Subscribe: []string{"rt/chatter"}}, sros2test.EnclaveOptions{}); err != nil {
				t.Fatal(err)
			}
			var rnd [12]byte
			rand.Read(rnd[:])
			marker := "MARKER-" + hex.EncodeToString(rnd[:])
			capt, err := startLoopCapture()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const run = 8 * time.Second
			listener := startSec(t, ctx, "listener", "sub", ks.Dir, "/listener", "rt/chatter", "", run)
			talker := startSec(t, ctx, "talker", "pub", ks.Dir, "/talker", "rt/chatter", marker, run)
			ok := waitFor(run, func() bool { return listener.count(marker) >= 20 })
			frames := capt.stop()
			if !ok {
				t.Fatalf("the listener did not get 20 samples:\n%v\n%v", listener, talker)
			}
			seen, bytesSeen := 0, 0
			for _, f := range frames {
				bytesSeen += len(f)
				if bytes.Contains(f, []byte(marker)) {
					seen++
				}
			}
			t.Logf("%d frames (%d bytes) captured on lo, %d with the marker; the listener got %d samples", len(frames), bytesSeen, seen, listener.count(marker))
			if c.plaintext && seen == 0 {
				t.Errorf("the marker is in no frame with a sign-only governance: the capture sees nothing (so it proves nothing)")
			}
			if !c.plaintext && seen != 0 {
				t.Errorf("the marker is in %d frames in plain text with data protection ENCRYPT", seen)
			}
		})
	}
}
