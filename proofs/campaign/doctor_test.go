package campaign

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// RecordDoctor keeps every session's report: one a second, a second report of the same second beside it.
func TestRecordDoctor(t *testing.T) {
	f, err := Create(t.TempDir(), []byte(goodPlan), Shard{}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 4, 22, 15, 0, 0, time.UTC)
	a, err := f.RecordDoctor([]byte(`{"checks":[]}`), at)
	if err != nil || a != filepath.Join(DoctorDir, "20261204_221500.json") {
		t.Fatalf("%q %v", a, err)
	}
	b, err := f.RecordDoctor([]byte(`{"checks":[1]}`), at)
	if err != nil || b != filepath.Join(DoctorDir, "20261204_221500-2.json") {
		t.Fatalf("%q %v", b, err)
	}
	if got, _ := os.ReadFile(filepath.Join(f.Dir, a)); string(got) != `{"checks":[]}` {
		t.Errorf("the first report was overwritten: %s", got)
	}
}
