//go:build ros2 && linux && cgo

package dds_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/ros2/dds"
)

// TestMain pins Cyclone to loopback (no packet leaves the machine) with a domain of its own.
func TestMain(m *testing.M) {
	os.Setenv("CYCLONEDDS_URI", dds.LoopbackConfig)
	os.Exit(m.Run())
}

func testDomain() int { return 100 + os.Getpid()%100 }

// TestRoundTrip sends bytes between two participants through the opaque sertype: what goes in comes out,
// byte for byte, including bytes that are no valid CDR (Cyclone does not interpret them).
func TestRoundTrip(t *testing.T) {
	a, err := dds.NewParticipant(testDomain(), "enclave=/;")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := dds.NewParticipant(testDomain(), "enclave=/;")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	deep := dds.QoS{Reliable: true, Depth: 100}
	w, err := a.NewWriter("rt/test_bytes", "std_msgs::msg::dds_::String_", deep, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := b.NewReader("rt/test_bytes", "std_msgs::msg::dds_::String_", deep, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, _ := w.Matched()
		m, _ := r.Matched()
		if n == 1 && m == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no match in 5 s: writer %d, reader %d", n, m)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var want [][]byte
	for i := 0; i < 50; i++ {
		msg := []byte(fmt.Sprintf("\x00\x01\x00\x00 sample %d", i))
		if i == 7 {
			msg = []byte{0xde, 0xad} // not even a CDR header
		}
		if i == 8 {
			msg = bytes.Repeat([]byte{0xab}, 70000) // fragmented
		}
		want = append(want, msg)
		if err := w.Write(msg); err != nil {
			t.Fatal(err)
		}
	}
	var got []dds.Sample
	for len(got) < len(want) && time.Now().Before(deadline) {
		if _, err := r.Wait(100 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if got, err = r.Take(got); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].Data, want[i]) {
			t.Errorf("sample %d: got %d bytes % x..., want %d", i, len(got[i].Data), got[i].Data[:min(8, len(got[i].Data))], len(want[i]))
		}
		if got[i].Writer != w.Handle() {
			t.Errorf("sample %d from writer handle %x, want %x", i, got[i].Writer, w.Handle())
		}
	}
}

// TestWakeAndClose: Wake ends a Wait; Close ends a pending Wait and later calls fail.
func TestWakeAndClose(t *testing.T) {
	p, err := dds.NewParticipant(testDomain(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := p.NewReader("rt/test_wake", "std_msgs::msg::dds_::Bool_", dds.SensorData, "")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Wait(10 * time.Second)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	r.Wake()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Wake did not end Wait")
	}
	go func() { _, err := r.Wait(10 * time.Second); done <- err }()
	time.Sleep(50 * time.Millisecond)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	<-done
	if _, err := r.Take(nil); err == nil {
		t.Fatal("Take after Close did not fail")
	}
}

// TestPaddingIsZero: Cyclone sends a sample's serialized size rounded up to 4; the bytes between the end of
// the sample and that boundary must be zeros, not whatever the heap held past the allocation (rmw_cyclonedds
// pads the same way). Every buffer is filled with 0xAA first (FillAllocations), as stale heap data would
// be, and a reader in another process (the network path; in one process Cyclone hands the sample over
// without serializing it) prints what arrived.
func TestPaddingIsZero(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process")
	}
	dom := testDomain()
	dds.FillAllocations(0xAA)
	defer dds.FillAllocations(-1)
	p, err := dds.NewParticipant(dom, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	deep := dds.QoS{Reliable: true, Depth: 100}
	w, err := p.NewWriter("rt/test_pad", "std_msgs::msg::dds_::String_", deep, "")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPaddingReaderProcess$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("ROSORIN_DDS_PAD_READER=%d", dom))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for n, _ := w.Matched(); n < 1; n, _ = w.Matched() {
		if time.Now().After(deadline) {
			t.Fatal("the reader process did not match in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var want [][]byte
	for n := 5; n <= 12; n++ {
		msg := append([]byte{0, 1, 0, 0}, bytes.Repeat([]byte{byte(n)}, n-4)...)
		want = append(want, msg)
		if err := w.Write(msg); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(out)
	for i := 0; i < len(want); i++ {
		if !sc.Scan() {
			t.Fatalf("the reader process printed %d samples, want %d", i, len(want))
		}
		got, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatal(err)
		}
		n := len(want[i])
		if len(got) != (n+3)&^3 || !bytes.Equal(got[:n], want[i]) {
			t.Errorf("sample of %d bytes arrived as % x, want it padded to %d", n, got, (n+3)&^3)
			continue
		}
		if pad := got[n:]; !bytes.Equal(pad, make([]byte, len(pad))) {
			t.Errorf("sample of %d bytes: padding % x on the wire, want zeros (bytes past the sample's end)", n, pad)
		}
	}
}

// TestPaddingReaderProcess is TestPaddingIsZero's reader, run in a child process: it prints every sample it
// takes on rt/test_pad, in hex, one per line.
func TestPaddingReaderProcess(t *testing.T) {
	dom, err := strconv.Atoi(os.Getenv("ROSORIN_DDS_PAD_READER"))
	if err != nil {
		t.Skip("the reader process of TestPaddingIsZero")
	}
	p, err := dds.NewParticipant(dom, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	r, err := p.NewReader("rt/test_pad", "std_msgs::msg::dds_::String_", dds.QoS{Reliable: true, Depth: 100}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var buf []dds.Sample
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		r.Wait(100 * time.Millisecond)
		if buf, err = r.Take(buf[:0]); err != nil {
			t.Fatal(err)
		}
		for _, s := range buf {
			fmt.Println(hex.EncodeToString(s.Data))
		}
	}
}
