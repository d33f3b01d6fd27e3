package proofrec

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// A sample's time on the run's timeline survives the nanosecond stamp bit for bit, for the times a run
// makes (durations converted with Seconds), across days of run time.
func TestStampKeepsTheJudgesTime(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 123456789, time.UTC).UnixNano()
	for i := 0; i < 200000; i++ {
		d := time.Duration(r.Int63n(int64(72 * time.Hour)))
		s := d.Seconds()
		if got := SampleTime(t0, StampNs(t0, s)); got != s {
			t.Fatalf("%v: %v came back as %v", d, s, got)
		}
	}
}

// Written, finished and read back; and the .part of a run killed before Close reads to its cut.
func TestProofRecordingRoundTrip(t *testing.T) {
	var nilRec *Writer // --no-record: every method is a no-op
	nilRec.Event(time.Now(), "x")
	nilRec.IMU([]float64{1}, [][3]float64{{1, 2, 3}})
	if nilRec.Close() != nil || nilRec.Attach([]byte("{}")) != nil || nilRec.Path() != "" {
		t.Fatal("nil recording")
	}
	for _, finish := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "run.mcap")
		t0 := time.Now()
		rec, err := Create(path, t0, map[string]string{"kind": "stop_proof_stand"})
		if err != nil {
			t.Fatal(err)
		}
		rec.Line(t0, "state: {}")
		rec.Event(t0.Add(time.Second), map[string]any{"event": "trigger", "t": 1.0})
		ts := []float64{(time.Second + 7).Seconds(), (2*time.Second + 123456789).Seconds()}
		first, n, inexact := rec.IMU(ts, [][3]float64{{0.001, -0.002, 0.5}, {1e-9, 2, 3}})
		if first != 0 || n != 2 || inexact != 0 {
			t.Fatalf("IMU: first %d n %d inexact %d", first, n, inexact)
		}
		if err := rec.Input(t0.Add(2*time.Second), map[string]any{"index": 0, "imu_first": first, "imu_count": n}); err != nil {
			t.Fatal(err)
		}
		file := path
		if finish {
			if err := rec.Attach([]byte(`{"tool":"x"}`)); err != nil {
				t.Fatal(err)
			}
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
		} else {
			// As a SIGKILL leaves it: the flusher has run, Close never does.
			time.Sleep(300 * time.Millisecond)
			file = path + mcapfile.PartSuffix
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Read(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("finish %v: %v", finish, err)
		}
		if len(f.Events) != 1 || len(f.Inputs) != 1 || f.Lines != 1 || f.Meta["kind"] != "stop_proof_stand" || f.T0ns != t0.UnixNano() {
			t.Fatalf("finish %v: read back %+v", finish, f)
		}
		s, err := f.Samples(0, 2)
		if err != nil || s[0].T != ts[0] || s[1].T != ts[1] || s[0].Gyro != [3]float64{0.001, -0.002, 0.5} {
			t.Fatalf("samples %+v %v", s, err)
		}
		if _, err := f.Samples(1, 2); err == nil {
			t.Error("samples past the end: no error")
		}
		if finish && (string(f.Record) != `{"tool":"x"}` || f.Walk.Cut != nil) {
			t.Errorf("record %q, cut %v", f.Record, f.Walk.Cut)
		}
		if !finish {
			if f.Record != nil || f.Walk.Cut == nil {
				t.Errorf("killed run: record %q, cut %v", f.Record, f.Walk.Cut)
			}
			rec.Close()
		}
	}
	if _, err := Read(bytes.NewReader([]byte("not mcap"))); err == nil {
		t.Error("text read as a recording")
	}
}

func TestRecordingPath(t *testing.T) {
	for in, want := range map[string]string{"reports/evidence/stop_proof_stand_1.log": "reports/evidence/stop_proof_stand_1.mcap", "x": "x.mcap"} {
		if got := PathBeside(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// Two judge calls over one stream (the scan-loss path: the stop judge's samples, then the release check's,
// the same or a prefix, or those plus later ones) put each sample on /proof/imu once, in time order, and
// each call's sequence numbers name exactly its samples. Before issue 17's fix every call wrote its samples
// again: the committed recording held 605 of its 1760 samples twice and stepped back 5.5 s.
func TestProofRecordingWritesEachSampleOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.mcap")
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	rec, err := Create(path, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	stream := func(from, n int) ([]float64, [][3]float64) {
		ts, gs := make([]float64, n), make([][3]float64, n)
		for i := range ts {
			ts[i] = (time.Duration(from+i) * 9 * time.Millisecond).Seconds()
			gs[i] = [3]float64{0, 0, float64((from + i) % 3)} // repeats: equal gyros at other times stay distinct
		}
		return ts, gs
	}
	type call struct{ from, n int }
	type named struct{ first, n uint32 }
	calls := []struct {
		c    call
		want named
	}{
		{call{0, 600}, named{0, 600}},     // stop judge
		{call{0, 600}, named{0, 600}},     // release check: the same samples
		{call{0, 400}, named{0, 400}},     // a prefix
		{call{0, 650}, named{0, 650}},     // those and 50 later ones
		{call{650, 100}, named{650, 100}}, // the next path
		{call{700, 10}, named{700, 10}},   // inside what is recorded
	}
	for _, c := range calls {
		ts, gs := stream(c.c.from, c.c.n)
		first, n, inexact := rec.IMU(ts, gs)
		if (named{first, n}) != c.want || inexact != 0 {
			t.Errorf("samples %d+%d named as %d+%d (inexact %d), want %d+%d", c.c.from, c.c.n, first, n, inexact, c.want.first, c.want.n)
		}
	}
	// Clock readings that reach the lock out of order still log in order.
	rec.Line(t0.Add(2*time.Second), "b")
	rec.Line(t0.Add(time.Second), "a")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := AuditFile(bytes.NewReader(b))
	if err != nil || !a.Clean() {
		t.Fatalf("%v\n%s", err, a)
	}
	f, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.IMU) != 750 {
		t.Errorf("%d samples recorded, want 750", len(f.IMU))
	}
	for _, c := range calls {
		got, err := f.Samples(c.want.first, c.want.n)
		ts, gs := stream(c.c.from, c.c.n)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i].T != ts[i] || got[i].Gyro != gs[i] {
				t.Fatalf("call %+v: sample %d is %+v, want %v %v", c.c, i, got[i], ts[i], gs[i])
			}
		}
	}
}

// The audit sees what it is for: a repeated message and a step back.
func TestAuditRecordingFindsRepeatsAndStepsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.mcap")
	r, err := mcapfile.Create(path, mcapfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.MessageChannel(TopicLog, "std_msgs/msg/String")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(100, 0)
	for _, w := range []struct {
		at time.Duration
		s  string
	}{{0, "a"}, {time.Second, "b"}, {time.Second, "b"}, {500 * time.Millisecond, "c"}} {
		if err := r.WriteMessage(c, t0.Add(w.at), &rosmsg.String{Data: w.s}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	a, err := AuditFile(f)
	if err != nil || a.Clean() || len(a) != 1 || a[0].Duplicates != 1 || a[0].Backwards != 1 || a[0].MaxBack != uint64(500*time.Millisecond) {
		t.Fatalf("%v %+v", err, a)
	}
}
