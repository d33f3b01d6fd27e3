package stand

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/target/targettest"
)

func captureBytes(t testing.TB, name string) []byte {
	t.Helper()
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "testdata", "captures", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rejudge(b []byte) (*proofrec.File, *Rejudged, error) {
	f, err := proofrec.Read(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	rj, err := Rejudge(f)
	return f, rj, err
}

// The committed recordings re-judge to the live verdicts; the negative control FAILs every line. Each holds
// every sample once, every channel in log-time order (proofrec.AuditFile).
func TestRejudgeCaptures(t *testing.T) {
	for _, c := range []struct {
		name           string
		passed, judged int
	}{{"stand-sim-pass.mcap", 3, 3}, {"stand-sim-ignore-motor.mcap", 0, 2}} {
		if a, err := proofrec.AuditFile(bytes.NewReader(captureBytes(t, c.name))); err != nil || !a.Clean() {
			t.Errorf("%s: %v\n%s", c.name, err, a)
		}
		_, rj, err := rejudge(captureBytes(t, c.name))
		if err != nil {
			t.Fatal(err)
		}
		if rj.Report.Passed != c.passed || rj.Judged != c.judged || len(rj.Differences) != 0 || !rj.Recorded {
			t.Errorf("%s: passed %d judged %d differences %v, want %d, %d, none", c.name, rj.Report.Passed, rj.Judged, rj.Differences, c.passed, c.judged)
		}
	}
}

// The re-judge can fail: a sample changed in the recording changes the verdict, and the comparison says so.
func TestRejudgeSeesAChangedSample(t *testing.T) {
	f, err := proofrec.Read(bytes.NewReader(captureBytes(t, "stand-sim-pass.mcap")))
	if err != nil {
		t.Fatal(err)
	}
	// Make the wheels loud 1.5 s after the kill's trigger: the stop is no longer still from 0.45 s.
	var in JudgeInput
	for _, m := range f.Inputs {
		if strings.Contains(m.Text, `"path":"kill"`) {
			if err := jsonUnmarshal(m.Text, &in); err != nil {
				t.Fatal(err)
			}
		}
	}
	for seq := in.IMUFirst; seq < in.IMUFirst+in.IMUCount; seq++ {
		s := f.IMU[seq]
		if d := s.T - in.From; d > 1.5 && d < 1.8 {
			s.Gyro[0] += 0.05 * float64(seq%2)
			f.IMU[seq] = s
		}
	}
	rj, err := Rejudge(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rj.Differences) != 1 || !strings.Contains(rj.Differences[0], "driver kill, fwd 0.35: ") {
		t.Errorf("differences %q, want the kill line", rj.Differences)
	}
}

// FuzzRejudge: any bytes read as a recording and re-judged give an error or a result, never a panic.
func FuzzRejudge(f *testing.F) {
	b := captureBytes(f, "stand-sim-ignore-motor.mcap")
	f.Add(b[:4096])
	f.Add(b[:16384])
	f.Add([]byte("\x89MCAP0\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pf, rj, err := rejudge(data)
		if err != nil {
			return
		}
		var out bytes.Buffer
		WriteRejudged(&out, "fuzz", pf, rj)
	})
}

// BenchmarkRejudge reads and re-judges the passing recording (3 lines, 1152 samples): the x-realtime metric
// is the run's own length (start to end of the live run) over the time of one read and re-judge.
func BenchmarkRejudge(b *testing.B) {
	data := captureBytes(b, "stand-sim-pass.mcap")
	_, rj, err := rejudge(data)
	if err != nil {
		b.Fatal(err)
	}
	run := rj.Report.End.Sub(rj.Report.Start)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, _, err := rejudge(data); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(run)/float64(per), "x-realtime")
	b.ReportMetric(rj.Span/per.Seconds(), "x-judged-span")
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// A recorded run against the fake: every judged sample on /proof/imu once, every channel's log time in
// order (the scan-loss path's release check once wrote its samples a second time, 5.5 s back), and the
// re-judge of the file agrees with the live run.
func TestRecordedRunIsCleanAndRejudges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.mcap")
	var rec *proofrec.Writer
	lines := 0
	run(t, targettest.Options{Seed: 3}, "scanloss,kill,estop", func(o *Options) {
		t0, _ := o.Evidence.Start()
		var err error
		rec, err = proofrec.Create(path, t0, map[string]string{"kind": "stop_proof_stand"})
		if err != nil {
			t.Fatal(err)
		}
		o.Evidence.SetTap(rec.Line)
		o.Record = rec
	}, func(t *testing.T, rep *Report, f *targettest.Fake, out string, err error) {
		if err != nil || !rep.AllPassed() {
			t.Fatalf("%v %s\n%s", err, rep.ResultLine(), out)
		}
		lines = len(rep.Results)
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(rec.Attach(b), rec.Close()); err != nil {
			t.Fatal(err)
		}
	})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := proofrec.AuditFile(bytes.NewReader(b))
	if err != nil || len(a) != 4 {
		t.Fatalf("%v\n%s", err, a)
	}
	for _, c := range a {
		// In the bubble's virtual time the spin-up's last command and the hold's first are sent at one
		// instant: two log lines alike in time and text, as no real clock makes them. Samples never repeat.
		if c.Backwards > 0 || c.Topic == proofrec.TopicJudgedIMU && (c.Duplicates > 0 || c.Messages == 0) {
			t.Errorf("%s", a)
		}
	}
	_, rj, err := rejudge(b)
	if err != nil || lines < 4 || rj.Judged != lines || rj.Report.Passed != lines || len(rj.Differences) != 0 {
		t.Fatalf("%v %+v", err, rj)
	}
}
