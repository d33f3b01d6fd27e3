package lidar_test

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/lidar"
	"github.com/rosorin/rosorin/protocol/coind6"
)

func scanAt(i int) coind6.Scan {
	r := make([]float32, 400)
	for k := range r {
		r[k] = float32(math.Inf(1))
	}
	r[0] = 1.5
	return coind6.Scan{Stamp: time.Unix(1000+int64(i), 0), ScanTime: 100 * time.Millisecond, Ranges: r,
		Intensities: make([]float32, 400), RangeMin: 0.12, RangeMax: 8}
}

func TestToAPI(t *testing.T) {
	s := lidar.ToAPI(scanAt(0), "laser")
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.FrameID != "laser" || !s.Stamp.Equal(time.Unix(1000, 0)) || s.ScanTime != 0.1 {
		t.Errorf("header %+v", s)
	}
	if math.Abs(s.AngleIncrement-2*math.Pi/400) > 1e-12 || s.AngleMin != 0 ||
		math.Abs(s.AngleMax-399*2*math.Pi/400) > 1e-12 || math.Abs(s.TimeIncrement-0.1/400) > 1e-12 {
		t.Errorf("angles %v %v %v, time increment %v", s.AngleMin, s.AngleMax, s.AngleIncrement, s.TimeIncrement)
	}
	if s.Ranges[0] != 1.5 || !math.IsInf(float64(s.Ranges[1]), 1) {
		t.Errorf("ranges %v %v", s.Ranges[0], s.Ranges[1])
	}
}

// fakeStream records scans; it fails after failAfter sends (0 = never).
type fakeStream struct {
	mu        sync.Mutex
	got       []api.Scan
	failAfter int
	closed    bool
}

func (f *fakeStream) Send(s api.Scan) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failAfter > 0 && len(f.got) >= f.failAfter {
		return errors.New("driver went away")
	}
	f.got = append(f.got, s)
	return nil
}

func (f *fakeStream) Close() (api.StreamResult, error) {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return api.StreamResult{}, nil
}

func (f *fakeStream) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.got)
}

// TestForwarderReconnects: the driver is down at first (open fails), then a stream breaks after two scans; the
// forwarder reconnects each time and keeps delivering; Offer never blocks.
func TestForwarderReconnects(t *testing.T) {
	var mu sync.Mutex
	opens := 0
	streams := []*fakeStream{{failAfter: 2}, {}}
	fw := lidar.NewForwarder(func(ctx context.Context) (lidar.ScanStream, error) {
		mu.Lock()
		defer mu.Unlock()
		opens++
		if opens <= 2 {
			return nil, errors.New("no driver")
		}
		if len(streams) == 0 {
			return nil, errors.New("no more")
		}
		s := streams[0]
		streams = streams[1:]
		return s, nil
	}, "laser", nil)
	fw.RetryEvery = 5 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fw.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	i := 0
	for time.Now().Before(deadline) {
		fw.Offer(scanAt(i))
		i++
		time.Sleep(2 * time.Millisecond)
		if sent, _, connects := fw.Counts(); sent >= 10 && connects == 2 {
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	sent, dropped, connects := fw.Counts()
	if sent < 10 || connects != 2 {
		t.Fatalf("sent %d, dropped %d, connects %d: want >= 10 sent over 2 connections", sent, dropped, connects)
	}
	t.Logf("offered %d, sent %d, dropped %d, connects %d", i, sent, dropped, connects)
}

// TestOfferNewestWins: with nobody sending, Offer keeps only the newest scan and counts the rest as dropped.
func TestOfferNewestWins(t *testing.T) {
	st := &fakeStream{}
	fw := lidar.NewForwarder(func(ctx context.Context) (lidar.ScanStream, error) { return st, nil }, "laser", nil)
	for i := 0; i < 5; i++ {
		fw.Offer(scanAt(i))
	}
	if _, dropped, _ := fw.Counts(); dropped != 4 {
		t.Fatalf("dropped %d, want 4", dropped)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fw.Run(ctx) }()
	for st.count() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if got := st.got[0].Stamp; !got.Equal(time.Unix(1004, 0)) {
		t.Errorf("sent the scan stamped %v, want the newest (1004)", got)
	}
}

// panicPort is a device whose read panics: a bug in the read loop must surface as ErrReadLoop (the process
// exits non-zero and is respawned), never as a live process with a dead reader.
type panicPort struct{}

func (panicPort) Read([]byte) (int, error)        { panic("surprise in the data") }
func (panicPort) Close() error                    { return nil }
func (panicPort) SetReadDeadline(time.Time) error { return nil }

func TestReadLoopPanicIsAnError(t *testing.T) {
	r := lidar.New(lidar.Config{Device: "fake", Open: func(string) (lidar.Port, error) { return panicPort{}, nil }})
	err := r.Run(context.Background(), func(coind6.Scan) {})
	if !errors.Is(err, lidar.ErrReadLoop) || !strings.Contains(err.Error(), "surprise") {
		t.Fatalf("Run: %v, want ErrReadLoop", err)
	}
}

// scriptPort plays chunks, then reports EOF (a vanished device).
type scriptPort struct {
	chunks [][]byte
}

func (p *scriptPort) Read(b []byte) (int, error) {
	if len(p.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.chunks[0])
	p.chunks[0] = p.chunks[0][n:]
	if len(p.chunks[0]) == 0 {
		p.chunks = p.chunks[1:]
	}
	return n, nil
}
func (p *scriptPort) Close() error                    { return nil }
func (p *scriptPort) SetReadDeadline(time.Time) error { return nil }

// TestReaderHostileBytes: revolutions fed one byte at a time with garbage between packets still assemble;
// garbage is counted, a device that ends is reopened, and a half revolution across a reopen is not a scan.
func TestReaderHostileBytes(t *testing.T) {
	var stream []byte
	for rev := 0; rev < 4; rev++ {
		for k := 0; k < 17; k++ {
			p := coind6.Packet{CT: 0x00, FSA: coind6.DegToRaw(float64(k) * 22.5), LSA: coind6.DegToRaw(float64(k)*22.5 + 21.6)}
			n := 25
			if k == 0 {
				p.CT, n = 0xC9, 1
			}
			for i := 0; i < n; i++ {
				p.Samples = append(p.Samples, coind6.Sample{Intensity: 100, DistMM: 1000})
			}
			b, err := coind6.Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			stream = append(stream, b...)
			stream = append(stream, 0xAA, 0x00, 0x13) // garbage
		}
	}
	var chunks [][]byte
	for _, c := range stream {
		chunks = append(chunks, []byte{c})
	}
	opens := 0
	var got []coind6.Scan
	ctx, cancel := context.WithCancel(context.Background())
	r := lidar.New(lidar.Config{Device: "fake", RetryEvery: time.Millisecond, Open: func(string) (lidar.Port, error) {
		opens++
		if opens > 2 {
			cancel()
			return nil, errors.New("gone")
		}
		return &scriptPort{chunks: append([][]byte(nil), chunks...)}, nil
	}})
	if err := r.Run(ctx, func(s coind6.Scan) { got = append(got, s) }); err != nil {
		t.Fatal(err)
	}
	// Each open: 4 revolution starts -> 3 finished revolutions (the 4th is cut by the EOF).
	if len(got) != 6 {
		t.Fatalf("%d scans, want 6 (3 per open)", len(got))
	}
	st := r.Stats()
	if st.Opens != 2 || st.Reopens != 1 || st.Parser.SkippedBytes == 0 || st.Scans != 6 {
		t.Errorf("stats %+v", st)
	}
	if got[0].Samples != 401 {
		t.Errorf("revolution has %d samples, want 401", got[0].Samples)
	}
}
