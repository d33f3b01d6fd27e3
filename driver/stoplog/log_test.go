package stoplog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/rosorin/rosorin/driver/api"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func sample(i int) api.StopRecord {
	still := 0.25 + float64(i)/1000
	return api.StopRecord{
		Boot: "2026-01-02T03:04:05.123456789Z pid 4242", Wall: time.Date(2026, 1, 2, 3, 4, 5, i, time.UTC),
		UptimeS: float64(i), Kind: api.StopEStop, Reason: fmt.Sprintf("estop request %d", i),
		BodyVel: [3]float64{0.3, 0, 0}, Speed: 0.3, Direction: "fwd", StillS: &still, StillFrom: "board gyro vibration",
		Outcome: "PASS", Confidence: api.ConfidenceOK, Notes: []string{"n"},
	}
}

func open(t *testing.T, dir string, o Options) (*Log, Recovery) {
	t.Helper()
	l, r, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return l, r
}

func mustRead(t *testing.T, dir string) ([]api.StopRecord, Recovery) {
	t.Helper()
	recs, r, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return recs, r
}

func seqs(recs []api.StopRecord) []uint64 {
	var s []uint64
	for _, r := range recs {
		s = append(s, r.Seq)
	}
	return s
}

func wantSeqs(t *testing.T, recs []api.StopRecord, from, to uint64) {
	t.Helper()
	if len(recs) != int(to-from+1) {
		t.Fatalf("got seqs %v, want %d..%d", seqs(recs), from, to)
	}
	for i, r := range recs {
		if r.Seq != from+uint64(i) {
			t.Fatalf("got seqs %v, want %d..%d", seqs(recs), from, to)
		}
	}
}

func segPath(dir string, n int) string { return filepath.Join(dir, SubDir, segName(n)) }

// TestRoundTrip: records appended, flushed and read back equal what went in, with seqs from 1.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	l, r := open(t, dir, Options{})
	if r.Segments != 0 || r.Good != 0 || len(r.Bad) != 0 {
		t.Fatalf("fresh log: %+v", r)
	}
	var in []api.StopRecord
	for i := range 5 {
		in = append(in, l.Append(sample(i)))
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if s := l.Stats(); s.Written != 5 || s.Appended != 5 || s.Dropped != 0 || s.Err != nil || s.LastSeq != 5 {
		t.Fatalf("stats %+v", s)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if err := l.Flush(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Flush after Close: %v", err)
	}
	out, r := mustRead(t, dir)
	if r.Good != 5 || r.LastSeq != 5 || r.Err() != nil {
		t.Fatalf("recovery %+v", r)
	}
	for i := range in {
		if in[i].Seq != uint64(i+1) {
			t.Fatalf("seq %d, want %d", in[i].Seq, i+1)
		}
		a, _ := AppendLine(nil, in[i])
		b, _ := AppendLine(nil, out[i])
		if !bytes.Equal(a, b) || !in[i].Wall.Equal(out[i].Wall) {
			t.Fatalf("record %d changed:\n%s\n%s", i, a, b)
		}
	}
}

// TestTornTail: a last line cut mid-way is named, cut off at Open (and only there), and the next record
// continues the seq on a line of its own.
func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	l, _ := open(t, dir, Options{})
	for i := range 4 {
		l.Append(sample(i))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path := segPath(dir, 1)
	b, _ := os.ReadFile(path)
	lastStart := bytes.LastIndexByte(b[:len(b)-1], '\n') + 1
	torn := int64(lastStart + 30)
	if err := os.Truncate(path, torn); err != nil {
		t.Fatal(err)
	}
	// Read names it and cuts nothing.
	recs, r := mustRead(t, dir)
	wantSeqs(t, recs, 1, 3)
	if len(r.Bad) != 1 || !r.Bad[0].Torn || r.Bad[0].Line != 4 || r.Bad[0].Offset != int64(lastStart) || r.Cut != 0 {
		t.Fatalf("Read: %+v", r)
	}
	if fi, _ := os.Stat(path); fi.Size() != torn {
		t.Fatal("Read changed the file")
	}
	l, r = open(t, dir, Options{})
	if r.Good != 3 || r.LastSeq != 3 || len(r.Bad) != 1 || !r.Bad[0].Torn || r.Cut != 30 {
		t.Fatalf("Open: %+v", r)
	}
	t.Logf("named: %v", r.Err())
	if got := l.Append(sample(9)); got.Seq != 4 {
		t.Fatalf("next seq %d, want 4", got.Seq)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	recs, r = mustRead(t, dir)
	wantSeqs(t, recs, 1, 4)
	if len(r.Bad) != 0 {
		t.Fatalf("after the cut: %v", r.Err())
	}
}

// TestBitFlip: one flipped bit inside a middle line is named with its line and offset; the others are kept,
// and Open goes on (the line is not cut: it is not the tail).
func TestBitFlip(t *testing.T) {
	dir := t.TempDir()
	l, _ := open(t, dir, Options{})
	for i := range 5 {
		l.Append(sample(i))
	}
	l.Close()
	path := segPath(dir, 1)
	b, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(b, []byte("\n"))
	off := len(lines[0]) + len(lines[1]) // line 3
	b[off+40] ^= 0x04
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	l, r := open(t, dir, Options{})
	if r.Good != 4 || r.LastSeq != 5 || len(r.Bad) != 1 || r.Cut != 0 {
		t.Fatalf("Open: %+v", r)
	}
	bad := r.Bad[0]
	if bad.Line != 3 || bad.Offset != int64(off) || bad.Torn || !strings.Contains(bad.Why, "checksum mismatch") || bad.File != path {
		t.Fatalf("bad %+v", bad)
	}
	t.Log(bad.Error())
	if got := l.Append(sample(6)); got.Seq != 6 {
		t.Fatalf("seq %d", got.Seq)
	}
	l.Close()
	recs, _ := mustRead(t, dir)
	if fmt.Sprint(seqs(recs)) != "[1 2 4 5 6]" {
		t.Fatalf("seqs %v", seqs(recs))
	}
}

// TestRotation: segments close at SegmentSize, the oldest go past MaxSegments, and seq goes on.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	line, _ := AppendLine(nil, api.StopRecord{Seq: 10, Kind: "x"})
	l, _ := open(t, dir, Options{SegmentSize: int64(3 * len(line)), MaxSegments: 3})
	for i := range 20 {
		l.Append(api.StopRecord{Kind: "x"})
		if i%4 == 3 {
			if err := l.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	l.Close()
	nums, _ := segments(filepath.Join(dir, SubDir))
	// 20 records of 3 a segment (seqs 10..20 are as long as the sample line, 1..9 shorter: 3 still fit).
	if fmt.Sprint(nums) != "[5 6 7]" {
		t.Fatalf("segments %v, want [5 6 7]", nums)
	}
	for _, n := range nums {
		fi, _ := os.Stat(segPath(dir, n))
		if fi.Size() > int64(3*len(line)) {
			t.Fatalf("segment %d is %d bytes", n, fi.Size())
		}
	}
	recs, r := mustRead(t, dir)
	wantSeqs(t, recs, 13, 20)
	if r.Segments != 3 || len(r.Bad) != 0 {
		t.Fatalf("%+v", r)
	}
	// Reopened: seq 21 fills segment 7 (19 and 20 are in it), 22 starts segment 8 and segment 5 goes.
	l, _ = open(t, dir, Options{SegmentSize: int64(3 * len(line)), MaxSegments: 3})
	if got := l.Append(api.StopRecord{}); got.Seq != 21 {
		t.Fatalf("seq %d", got.Seq)
	}
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	if nums, _ := segments(filepath.Join(dir, SubDir)); fmt.Sprint(nums) != "[5 6 7]" {
		t.Fatalf("segments %v", nums)
	}
	l.Append(api.StopRecord{})
	l.Close()
	if nums, _ := segments(filepath.Join(dir, SubDir)); fmt.Sprint(nums) != "[6 7 8]" {
		t.Fatalf("segments %v", nums)
	}
}

// TestSeqAcrossRestarts: seq continues across Close and Open, into the same segment while it has room.
func TestSeqAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	for round := range 3 {
		l, r := open(t, dir, Options{})
		if r.LastSeq != uint64(round*2) {
			t.Fatalf("round %d: last seq %d", round, r.LastSeq)
		}
		for i := range 2 {
			// Next is the seq Append then gives (the driver names a stop by it before appending it).
			next := l.Next()
			if got := l.Append(sample(i)).Seq; next != uint64(round*2+i+1) || got != next {
				t.Fatalf("round %d: Next %d, Append gave %d, want %d", round, next, got, round*2+i+1)
			}
		}
		l.Close()
	}
	recs, r := mustRead(t, dir)
	wantSeqs(t, recs, 1, 6)
	if r.Segments != 1 {
		t.Fatalf("%d segments, want 1", r.Segments)
	}
}

// TestBatching: in virtual time, a record reaches the disk BatchDelay after its Append, not before; a Flush
// writes at once.
func TestBatching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		l, _ := open(t, dir, Options{BatchDelay: 200 * time.Millisecond})
		defer l.Close()
		onDisk := func() int { recs, _ := mustRead(t, dir); return len(recs) }
		l.Append(sample(0))
		time.Sleep(100 * time.Millisecond)
		l.Append(sample(1))
		time.Sleep(99 * time.Millisecond)
		synctest.Wait()
		if n := onDisk(); n != 0 {
			t.Fatalf("%d records on disk before the batch delay", n)
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		if n := onDisk(); n != 2 || l.Stats().Written != 2 {
			t.Fatalf("%d records on disk after the batch delay, want 2 (one batch)", n)
		}
		l.Append(sample(2))
		synctest.Wait()
		if n := onDisk(); n != 2 {
			t.Fatalf("%d on disk right after Append", n)
		}
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		if n := onDisk(); n != 3 {
			t.Fatalf("%d on disk after Flush, want 3", n)
		}
	})
}

// stuckFile is a segment file whose writes wait until released.
type stuckFile struct {
	*os.File
	release <-chan struct{}
}

func (s stuckFile) Write(p []byte) (int, error) { <-s.release; return s.File.Write(p) }

// TestStuckDisk: while the writer is stuck in a write, Append never waits: the queue fills to MaxQueue, the
// rest are dropped and counted, and once the disk moves every queued record is written.
func TestStuckDisk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		release := make(chan struct{})
		o := Options{MaxQueue: 8, openSeg: func(path string, flag int) (segFile, error) {
			f, err := os.OpenFile(path, flag, 0o644)
			if err != nil {
				return nil, err
			}
			return stuckFile{f, release}, nil
		}}
		l, _ := open(t, dir, o)
		l.Append(sample(0))
		time.Sleep(time.Second)
		synctest.Wait() // the writer is in its write, stuck
		for i := range 8 + 5 {
			l.Append(sample(i))
		}
		s := l.Stats()
		if s.Dropped != 5 || s.Queued != 8 || s.Written != 0 || s.Err == nil {
			t.Fatalf("stuck: %+v", s)
		}
		t.Logf("stuck: %v", s.Err)
		close(release)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		recs, _ := mustRead(t, dir)
		wantSeqs(t, recs, 1, 9) // seqs 10..14 were dropped: the gap shows it
		if s := l.Stats(); s.Written != 9 || s.Dropped != 5 {
			t.Fatalf("after: %+v", s)
		}
	})
}

// failFile fails its writes or syncs while fail is set.
type failFile struct {
	*os.File
	mode *failMode
}

type failMode struct {
	sync.Mutex
	write, sync bool
}

func (m *failMode) set(write, sync bool) {
	m.Lock()
	defer m.Unlock()
	m.write, m.sync = write, sync
}

func (f failFile) Write(p []byte) (int, error) {
	f.mode.Lock()
	defer f.mode.Unlock()
	if f.mode.write {
		n, _ := f.File.Write(p[:len(p)/2+5]) // a torn line mid-file
		return n, syscall.ENOSPC
	}
	return f.File.Write(p)
}

func (f failFile) Sync() error {
	f.mode.Lock()
	defer f.mode.Unlock()
	if f.mode.sync {
		return syscall.EIO
	}
	return f.File.Sync()
}

// TestWriteErrors: a failed write or fsync keeps its records queued, says so in Stats and Flush, and they are
// written by a later batch in a new segment; the half-written line is named, never continued; a batch written
// again after a failed fsync is read once.
func TestWriteErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		mode := &failMode{}
		o := Options{openSeg: func(path string, flag int) (segFile, error) {
			f, err := os.OpenFile(path, flag, 0o644)
			if err != nil {
				return nil, err
			}
			return failFile{f, mode}, nil
		}}
		l, _ := open(t, dir, o)
		defer l.Close()
		l.Append(sample(0))
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		mode.set(true, false)
		l.Append(sample(1))
		l.Append(sample(2))
		if err := l.Flush(); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("Flush: %v", err)
		}
		if s := l.Stats(); s.Queued != 2 || s.Err == nil || s.Written != 1 {
			t.Fatalf("%+v", s)
		}
		mode.set(false, true)
		time.Sleep(1500 * time.Millisecond) // the retry, which fails at fsync after its write
		synctest.Wait()
		if s := l.Stats(); s.Queued != 2 || !errors.Is(s.Err, syscall.EIO) {
			t.Fatalf("%+v", s)
		}
		mode.set(false, false)
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		if s := l.Stats(); s.Queued != 0 || s.Err != nil || s.Written != 3 {
			t.Fatalf("%+v", s)
		}
		recs, r := mustRead(t, dir)
		wantSeqs(t, recs, 1, 3)
		// Segment 1: seqs 1, 2 and 3 torn; then each failed fsync's segment holds 2 and 3 again.
		if r.Segments < 3 || len(r.Bad) != 1 || !r.Bad[0].Torn || r.Bad[0].Line != 3 || r.Repeated != 1+2*(r.Segments-2) {
			t.Fatalf("%+v", r)
		}
		t.Log(r.Err())
	})
}

// TestUnusableDir: only a folder that cannot be made is an error, and it says which.
func TestUnusableDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state")
	os.WriteFile(file, nil, 0o644)
	if _, _, err := Open(file, Options{}); err == nil {
		t.Fatal("Open in a file: no error")
	} else {
		t.Log(err)
	}
	if recs, r, err := Read(filepath.Join(dir, "none")); err != nil || recs != nil || r.Segments != 0 {
		t.Fatalf("Read of a missing log: %v %v %+v", recs, err, r)
	}
}

// TestEncodeFailure: a record JSON cannot hold is dropped and counted, and the log goes on.
func TestEncodeFailure(t *testing.T) {
	dir := t.TempDir()
	l, _ := open(t, dir, Options{})
	rec := sample(0)
	nan := 0.0
	rec.UptimeS = nan / nan
	l.Append(rec)
	l.Append(sample(1))
	l.Close()
	s := l.Stats()
	if s.Dropped != 1 || s.Written != 1 || s.Err == nil {
		t.Fatalf("%+v", s)
	}
	recs, _ := mustRead(t, dir)
	if fmt.Sprint(seqs(recs)) != "[2]" {
		t.Fatal(seqs(recs))
	}
}

const childEnv = "STOPLOG_SIGKILL_CHILD"

// TestSIGKILL: a real child process appends records as fast as it can, flushing every 10 and saying on
// stdout which seq each Flush made durable; the parent SIGKILLs it mid-stream. Open then finds every record
// flushed before the kill, seqs without a gap, and at most a torn last line.
func TestSIGKILL(t *testing.T) {
	if dir := os.Getenv(childEnv); dir != "" {
		sigkillChild(dir)
		return
	}
	for round := range 3 {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILL$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		var flushed uint64
		for n := 0; n < 50+37*round && sc.Scan(); n++ {
			v, err := strconv.ParseUint(strings.TrimPrefix(sc.Text(), "flushed "), 10, 64)
			if err != nil {
				t.Fatalf("child said %q", sc.Text())
			}
			flushed = v
		}
		cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() { // what it said before the kill landed counts as flushed too
			if v, err := strconv.ParseUint(strings.TrimPrefix(sc.Text(), "flushed "), 10, 64); err == nil {
				flushed = v
			}
		}
		if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("child: %v", err)
		}
		if flushed == 0 {
			t.Fatal("the child flushed nothing")
		}
		l, r := open(t, dir, Options{})
		l.Close()
		recs, r2 := mustRead(t, dir)
		if r.LastSeq < flushed {
			t.Fatalf("flushed up to seq %d, recovered up to %d", flushed, r.LastSeq)
		}
		wantSeqs(t, recs, 1, r.LastSeq)
		if len(r.Bad) > 1 || (len(r.Bad) == 1 && !r.Bad[0].Torn) || len(r2.Bad) != 0 {
			t.Fatalf("recovery %+v", r)
		}
		t.Logf("round %d: flushed %d, recovered %d, torn tail cut: %d bytes", round, flushed, r.LastSeq, r.Cut)
	}
}

func sigkillChild(dir string) {
	l, _, err := Open(dir, Options{BatchDelay: time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := 0; ; i++ {
		rec := l.Append(sample(i))
		if i%10 == 9 {
			if err := l.Flush(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Fprintf(os.Stdout, "flushed %d\n", rec.Seq)
		}
		if i > 1e6 {
			os.Exit(3) // never killed
		}
	}
}
