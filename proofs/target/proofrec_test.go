package target

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
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
	var nilRec *ProofRecording // --no-record: every method is a no-op
	nilRec.Event(time.Now(), "x")
	nilRec.IMU([]float64{1}, [][3]float64{{1, 2, 3}})
	if nilRec.Close() != nil || nilRec.Attach([]byte("{}")) != nil || nilRec.Path() != "" {
		t.Fatal("nil recording")
	}
	for _, finish := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "run.mcap")
		t0 := time.Now()
		rec, err := CreateProofRecording(path, t0, map[string]string{"kind": "stop_proof_stand"})
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
		f, err := ReadProofRecording(bytes.NewReader(b))
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
	if _, err := ReadProofRecording(bytes.NewReader([]byte("not mcap"))); err == nil {
		t.Error("text read as a recording")
	}
}

func TestRecordingPath(t *testing.T) {
	for in, want := range map[string]string{"reports/evidence/stop_proof_stand_1.log": "reports/evidence/stop_proof_stand_1.mcap", "x": "x.mcap"} {
		if got := RecordingPath(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
