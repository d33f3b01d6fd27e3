package live

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
	"github.com/rosorin/rosorin/serialport"
)

// pattern is a byte stream where a dropped, repeated or reordered byte shows: an LCG per direction.
func pattern(seed uint32, n int) []byte {
	b := make([]byte, n)
	x := seed
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

// devicePair is a pty board (boardtest) standing in for the real device: the tap opens the slave
// (exclusively, raw, at the baud) and the test plays the device on the board's raw-byte end (Master).
func devicePair(t *testing.T) (master *boardtest.MasterEnd, slavePath string) {
	t.Helper()
	b := boardtest.OpenPTY(t, boardtest.Options{}) // the board keeps the slave open: master reads never see EIO
	return b.Master(), b.SlaveName()
}

// deadlineReader is a reader whose blocked Read a deadline ends: the program's port, the device's end.
type deadlineReader interface {
	io.Reader
	SetReadDeadline(time.Time) error
}

// pingLatency writes chunk to w and times until r has returned all of it, n times, 1 ms apart.
func pingLatency(t *testing.T, w io.Writer, r io.Reader, n, size int, seed uint32, sent *bytes.Buffer) []time.Duration {
	t.Helper()
	lat := make([]time.Duration, 0, n)
	got := make([]byte, size)
	for i := 0; i < n; i++ {
		chunk := pattern(seed+uint32(i), size)
		t0 := time.Now()
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(r, got); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		if !bytes.Equal(got, chunk) {
			t.Fatalf("ping %d: got % x, sent % x", i, got[:8], chunk[:8])
		}
		if sent != nil {
			sent.Write(chunk)
		}
		time.Sleep(time.Millisecond)
	}
	return lat
}

// waitRelaying writes probe bytes from the device until one reaches the program (the tap relays once its
// inotify watch has counted the program's open; before, the bytes are recorded only), then drains the
// program's side. What it wrote is appended to sent: the capture holds all of it.
func waitRelaying(t *testing.T, dev io.Writer, host *os.File, sent *bytes.Buffer) {
	t.Helper()
	buf := make([]byte, 256)
	deadline := time.Now().Add(testkit.Bound(5 * time.Second))
	for {
		if _, err := dev.Write([]byte{0x5a}); err != nil {
			t.Fatal(err)
		}
		sent.WriteByte(0x5a)
		_ = host.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if n, _ := host.Read(buf); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no byte reached the program through the tap")
		}
	}
	for {
		_ = host.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if n, err := host.Read(buf); n == 0 || err != nil {
			break
		}
	}
	_ = host.SetReadDeadline(time.Time{})
}

// TestTapRelaysAndRecordsEverything: a long known stream each way at once through the tap at 1,000,000
// baud termios, then paced chunks each way one at a time; every byte arrives in order, none is dropped,
// and the capture holds both streams exactly with consecutive sequence numbers. It logs throughput and the
// one-way latency the tap adds over a bare pty hop.
func TestTapRelaysAndRecordsEverything(t *testing.T) {
	devM, devPath := devicePair(t)
	dir := t.TempDir()
	link, out := filepath.Join(dir, "ttyACM0"), filepath.Join(dir, "tap.mcap")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		res TapResult
		err error
	}
	done := make(chan result, 1)
	log := &testkit.LockedBuffer{}
	go func() {
		r, err := Tap(ctx, TapOptions{Device: devPath, Link: link, Out: out, Kind: capture.Board, Log: log})
		done <- result{r, err}
	}()
	if err := testkit.Eventually(testkit.Bound(3*time.Second), func() error { _, err := os.Stat(link); return err }); err != nil {
		t.Fatalf("no link: %v; log %s", err, log.String())
	}
	host, err := serialport.Open(link, serialport.Options{Baud: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	var sentDown, sentUp bytes.Buffer
	waitRelaying(t, devM, host, &sentDown)

	size := 4 << 20
	if testkit.RaceEnabled {
		size = 1 << 20
	}
	if v, err := strconv.Atoi(os.Getenv("ROSORIN_TAP_MB")); err == nil && v > 0 { // a longer measurement
		size = v << 20
	}
	down, up := pattern(1, size), pattern(2, size)
	t0 := time.Now()
	errs := make(chan error, 4)
	copyOut := func(w io.Writer, b []byte) { _, err := w.Write(b); errs <- err }
	readAll := func(r deadlineReader, want []byte) {
		got := make([]byte, len(want))
		_ = r.SetReadDeadline(time.Now().Add(testkit.Bound(30 * time.Second))) // a lost byte fails, not hangs
		n, err := io.ReadFull(r, got)
		_ = r.SetReadDeadline(time.Time{})
		if err != nil {
			errs <- fmt.Errorf("read %d of %d bytes: %w", n, len(want), err)
			return
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && got[i] == want[i] {
				i++
			}
			errs <- fmt.Errorf("stream differs from byte %d of %d", i, len(want))
			return
		}
		errs <- nil
	}
	go copyOut(devM, down)
	go copyOut(host, up)
	go readAll(host, down)
	go readAll(devM, up)
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	el := time.Since(t0)
	sentDown.Write(down)
	sentUp.Write(up)
	mbps := float64(2*size) / el.Seconds() / 1e6
	t.Logf("throughput: %d bytes each way at once in %s: %.1f MB/s both ways together (1,000,000 baud 8N1 is 0.1 MB/s each way)",
		size, el.Round(time.Millisecond), mbps)

	n := 500
	if testkit.RaceEnabled {
		n = 100
	}
	latDown := pingLatency(t, devM, host, n, 64, 100, &sentDown)
	latUp := pingLatency(t, host, devM, n, 64, 900, &sentUp)
	// The baseline: the same pings over one bare pty hop (no tap): a second board to its own slave.
	bare := boardtest.OpenPTY(t, boardtest.Options{})
	base := pingLatency(t, bare.Master(), bare.TTY(), n, 64, 5000, nil)
	cancel()
	r := <-done
	if r.err != nil {
		t.Fatalf("tap: %v; log %s", r.err, log.String())
	}
	q := testkit.Quantile
	t.Logf("latency of a 64-byte chunk, %d pings: device->program p50 %s p99 %s; program->device p50 %s p99 %s; bare pty hop p50 %s p99 %s; added by the tap (device->program) p50 %s p99 %s",
		n, testkit.Ms(q(latDown, .5)), testkit.Ms(q(latDown, .99)), testkit.Ms(q(latUp, .5)), testkit.Ms(q(latUp, .99)),
		testkit.Ms(q(base, .5)), testkit.Ms(q(base, .99)), testkit.Ms(q(latDown, .5)-q(base, .5)), testkit.Ms(q(latDown, .99)-q(base, .99)))
	if r.res.Unrecorded != 0 {
		t.Fatalf("%d reads unrecorded", r.res.Unrecorded)
	}
	if r.res.ToHost != uint64(sentDown.Len()) || r.res.ToDevice != uint64(sentUp.Len()) || r.res.Why != "signal" ||
		r.res.NoProgram >= uint64(sentDown.Len()-size) {
		t.Fatalf("tap relayed %d/%d bytes, test sent %d/%d; why %q", r.res.ToHost, r.res.ToDevice, sentDown.Len(), sentUp.Len(), r.res.Why)
	}
	// The capture: both streams exactly, consecutive sequence numbers, a clean end.
	info, err := mcapfile.DescribeFile(out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if info.Ended != mcapfile.EndClean {
		t.Fatalf("capture ended %s", info.Ended)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	topics := map[uint16]string{}
	var rx, tx bytes.Buffer
	last := map[string]uint32{}
	prevT := map[string]uint64{}
	if _, err := mcapfile.Read(f, mcapfile.Visitor{
		Channel: func(c *mcap.Channel) error { topics[c.ID] = c.Topic; return nil },
		Message: func(m *mcap.Message) error {
			topic := topics[m.ChannelID]
			var dst *bytes.Buffer
			switch topic {
			case "/serial/board/rx":
				dst = &rx
			case "/serial/board/tx":
				dst = &tx
			default:
				return nil
			}
			seq, data, err := mcapfile.DecodeRaw(m.Data)
			if err != nil {
				return err
			}
			if want, ok := last[topic]; ok && seq != want+1 || !ok && seq != 0 || m.Sequence != seq {
				return fmt.Errorf("%s: seq %d (mcap %d) after %d", topic, seq, m.Sequence, last[topic])
			}
			last[topic] = seq
			if m.LogTime < prevT[topic] { // per channel: the two directions' readers race to the recorder's queue
				return fmt.Errorf("%s: log time goes back", topic)
			}
			prevT[topic] = m.LogTime
			dst.Write(data)
			return nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rx.Bytes(), sentDown.Bytes()) || !bytes.Equal(tx.Bytes(), sentUp.Bytes()) {
		t.Fatalf("capture holds %d rx / %d tx bytes; sent %d / %d (or they differ)", rx.Len(), tx.Len(), sentDown.Len(), sentUp.Len())
	}
	t.Logf("capture: %d rx messages, %d tx messages, %d bytes file; %s", last["/serial/board/rx"]+1, last["/serial/board/tx"]+1, info.Size, log.String())
}

// TestTapRefusesHeldDevice: a device its owner holds is refused, naming the owner, and leaves no file.
func TestTapRefusesHeldDevice(t *testing.T) {
	_, devPath := devicePair(t)
	held, err := serialport.Open(devPath, serialport.Options{Baud: 1_000_000, Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	dir := t.TempDir()
	_, err = Tap(context.Background(), TapOptions{Device: devPath, Link: filepath.Join(dir, "l"), Out: filepath.Join(dir, "o.mcap"), Kind: capture.Board})
	if err == nil || !serialport.IsBusy(err) {
		t.Fatalf("err %v, want busy", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "o.mcap.part")); !os.IsNotExist(err) {
		t.Fatalf("refused tap left a file: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "l")); !os.IsNotExist(err) {
		t.Fatalf("refused tap left a link: %v", err)
	}
}

// TestTapNoStaleBytesAfterReopen: what the device sends while the program has the link closed is recorded
// but never reaches the program when it opens the link again (as cdc-acm delivers nothing while closed).
func TestTapNoStaleBytesAfterReopen(t *testing.T) {
	devM, devPath := devicePair(t)
	dir := t.TempDir()
	link, out := filepath.Join(dir, "ttyACM0"), filepath.Join(dir, "tap.mcap")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan TapResult, 1)
	go func() {
		r, err := Tap(ctx, TapOptions{Device: devPath, Link: link, Out: out, Kind: capture.Board})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	if err := testkit.Eventually(testkit.Bound(3*time.Second), func() error { _, err := os.Stat(link); return err }); err != nil {
		t.Fatal(err)
	}
	var sent bytes.Buffer
	host, err := serialport.Open(link, serialport.Options{Baud: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	waitRelaying(t, devM, host, &sent)
	host.Close()
	time.Sleep(100 * time.Millisecond) // the close reaches the watch
	stale := bytes.Repeat([]byte{0xee}, 20000)
	if _, err := devM.Write(stale); err != nil {
		t.Fatal(err)
	}
	sent.Write(stale)
	time.Sleep(100 * time.Millisecond)
	host, err = serialport.Open(link, serialport.Options{Baud: 1_000_000, KeepInput: true}) // keep whatever waits: there must be none
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	var probes bytes.Buffer
	waitRelaying(t, devM, host, &probes)
	sent.Write(probes.Bytes())
	fresh := []byte("fresh")
	if _, err := devM.Write(fresh); err != nil {
		t.Fatal(err)
	}
	sent.Write(fresh)
	got := make([]byte, len(fresh))
	_ = host.SetReadDeadline(time.Now().Add(testkit.Bound(2 * time.Second)))
	if _, err := io.ReadFull(host, got); err != nil || !bytes.Equal(got, fresh) {
		t.Fatalf("after reopening the program read % x (%v), want %q: stale bytes got through", got, err, fresh)
	}
	cancel()
	r := <-done
	if r.NoProgram < uint64(len(stale)) || r.ToHost != uint64(sent.Len()) {
		t.Fatalf("no-program bytes %d (stale %d), read from the device %d, sent %d", r.NoProgram, len(stale), r.ToHost, sent.Len())
	}
	info, err := mcapfile.DescribeFile(out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if info.Channels[0].Topic != "/serial/board/rx" || info.Channels[0].Bytes != uint64(sent.Len()) {
		t.Fatalf("capture rx %s %d bytes, device sent %d", info.Channels[0].Topic, info.Channels[0].Bytes, sent.Len())
	}
}
