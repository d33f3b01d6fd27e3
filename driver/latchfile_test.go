package driver

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// latchCases is the golden table of latch files: it drives TestParseLatch and seeds FuzzParseLatch.
var latchCases = []struct {
	name    string
	raw     string
	latched bool   // parseLatch's record says latched (when ok)
	ok      bool   // parseLatch accepts it
	newer   bool   // refused as a newer format
	reason  string // the record's reason when ok
}{
	{"latched", `{"version":1,"latched":true,"reason":"estop request from pid 7","source":"api","time":"2026-12-04T18:00:00Z","driver_pid":7}` + "\n", true, true, false, "estop request from pid 7"},
	{"not latched", `{"version":1,"latched":false,"time":"2026-12-04T18:00:00Z"}`, false, true, false, ""},
	{"latched without a reason", `{"version":1,"latched":true,"time":"2026-12-04T18:00:00Z"}`, true, true, false, "unspecified"},
	{"newer version", `{"version":2,"latched":false,"something":"new"}`, false, false, true, ""},
	{"no version", `{"latched":false}`, false, false, false, ""},
	{"version zero", `{"version":0,"latched":false}`, false, false, false, ""},
	{"empty", ``, false, false, false, ""},
	{"blank", " \n\t", false, false, false, ""},
	{"truncated", `{"version":1,"latched":tr`, false, false, false, ""},
	{"zeros (power cut)", "\x00\x00\x00\x00", false, false, false, ""},
	{"unknown field", `{"version":1,"latched":false,"armed":true}`, false, false, false, ""},
	{"trailing data", `{"version":1,"latched":false}{"version":1}`, false, false, false, ""},
	{"wrong type", `{"version":1,"latched":"no"}`, false, false, false, ""},
	{"array", `[1]`, false, false, false, ""},
}

func TestParseLatch(t *testing.T) {
	for _, c := range latchCases {
		rec, err := parseLatch([]byte(c.raw))
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.name, err, c.ok)
			continue
		}
		if errors.Is(err, errLatchNewer) != c.newer {
			t.Errorf("%s: err %v, newer %v", c.name, err, c.newer)
		}
		if err == nil && (rec.Latched != c.latched || rec.Reason != c.reason) {
			t.Errorf("%s: %+v, want latched %v reason %q", c.name, rec, c.latched, c.reason)
		}
	}
	// What the driver writes, it reads back.
	rec := latchRecord{Latched: true, Reason: "gamepad button 0x0100", Source: "gamepad", Time: time.Date(2026, 12, 4, 18, 0, 0, 5, time.UTC), PID: 9}
	got, err := parseLatch(marshalLatch(rec))
	rec.Version = LatchFormat
	if err != nil || got != rec {
		t.Fatalf("round trip: %+v %v, want %+v", got, err, rec)
	}
}

// TestLoadLatch: only a missing file means "not latched"; everything that cannot be trusted latches, with a
// reason that names the file.
func TestLoadLatch(t *testing.T) {
	for _, c := range latchCases {
		dir := t.TempDir()
		path := filepath.Join(dir, LatchFileName)
		if err := os.WriteFile(path, []byte(c.raw), 0o644); err != nil {
			t.Fatal(err)
		}
		ld := loadLatch(dir)
		wantLatched := !c.ok || c.latched
		if (ld.reason != "") != wantLatched {
			t.Errorf("%s: start reason %q, want latched %v", c.name, ld.reason, wantLatched)
		}
		if ld.reason != "" && !strings.Contains(ld.reason, path) {
			t.Errorf("%s: reason %q does not name %s", c.name, ld.reason, path)
		}
		if c.newer && !strings.Contains(ld.reason, "newer format version 2") {
			t.Errorf("%s: reason %q does not say why", c.name, ld.reason)
		}
	}
	dir := t.TempDir()
	if ld := loadLatch(dir); ld.reason != "" || ld.found {
		t.Fatalf("missing file: %+v, want not latched", ld)
	}
	// Unreadable (here: a folder where the file should be): latched.
	if err := os.Mkdir(filepath.Join(dir, LatchFileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if ld := loadLatch(dir); ld.reason == "" || !strings.Contains(ld.reason, "unreadable") {
		t.Fatalf("unreadable file: %+v, want latched", ld)
	}
	// Too large to be a record: latched.
	dir = t.TempDir()
	big := `{"version":1,"latched":false,"reason":"` + strings.Repeat("x", latchFileLimit) + `"}`
	if err := os.WriteFile(filepath.Join(dir, LatchFileName), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if ld := loadLatch(dir); ld.reason == "" {
		t.Fatal("oversized file: not latched")
	}
	if ld := loadLatch(""); ld.reason != "" {
		t.Fatalf("no state directory: %+v", ld)
	}
}

func TestStartLatchReason(t *testing.T) {
	file := latchLoad{path: "/s/estop.json", found: true, rec: latchRecord{Latched: true, Reason: "estop request from pid 7"},
		reason: "e-stop latched before the restart: estop request from pid 7 (kept in /s/estop.json)"}
	for _, c := range []struct {
		sup  string
		ld   latchLoad
		want string
	}{
		{"", latchLoad{}, ""},
		{"driver restarted after killed by SIGKILL", latchLoad{}, "driver restarted after killed by SIGKILL"},
		{"", file, file.reason},
		// The supervisor hands over the reason the last driver had from the file: not nested again.
		{file.reason, file, file.reason},
		// The supervisor hands over the latch the last driver wrote to the file: the same latch.
		{"estop request from pid 7", file, "estop request from pid 7"},
		// A latched driver SIGKILLed: both said.
		{"driver restarted after killed by SIGKILL", file, "driver restarted after killed by SIGKILL; " + file.reason},
	} {
		if got := startLatchReason(c.sup, c.ld); got != c.want {
			t.Errorf("startLatchReason(%q, %q) = %q, want %q", c.sup, c.ld.reason, got, c.want)
		}
	}
}

func TestLatchSource(t *testing.T) {
	for reason, want := range map[string]string{
		"estop request from pid 7 (comm x)":                        "api",
		"multiple cmd_vel publishers":                              "publishers",
		"multiple manual/cmd_vel publishers":                       "publishers",
		"gamepad button 0x0100":                                    "gamepad",
		"contact: commanded 0.20 m/s, measured 0.01 m/s for 0.3 s": "contact",
		"key1": "key",
		"driver restarted after killed by SIGKILL": "restart",
		"board port reopened after USB drop":       "restart",
		"e-stop latched before the restart: x":     "file",
		"keyboard":                                 "",
		"something else":                           "",
	} {
		if got := latchSource(reason); got != want {
			t.Errorf("latchSource(%q) = %q, want %q", reason, got, want)
		}
	}
}

// FuzzParseLatch: the parser never panics; whatever it accepts it writes back the same; and no content of an
// existing file can start the driver unlatched unless it is a valid record that says so.
func FuzzParseLatch(f *testing.F) {
	for _, c := range latchCases {
		f.Add([]byte(c.raw))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := parseLatch(b)
		if err != nil {
			return
		}
		if rec.Latched && rec.Reason == "" {
			t.Fatalf("latched without a reason: %q", b)
		}
		again, err := parseLatch(marshalLatch(rec))
		if err != nil {
			t.Fatalf("%q: accepted as %+v, its own encoding refused: %v", b, rec, err)
		}
		if again.Latched != rec.Latched || again.Reason != rec.Reason || again.Source != rec.Source ||
			!again.Time.Equal(rec.Time) || again.PID != rec.PID {
			t.Fatalf("%q: %+v written back as %+v", b, rec, again)
		}
	})
}

func TestWriteFileDurable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.json")
	for _, data := range []string{"one\n", "two, longer\n"} {
		if err := writeFileDurable(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != data {
			t.Fatalf("content %q, want %q", b, data)
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Fatalf("files left beside it: %v", ents)
	}
	if err := removeFileDurable(path); err != nil {
		t.Fatal(err)
	}
	if err := removeFileDurable(path); err != nil {
		t.Fatalf("removing a missing file: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("still there: %v", err)
	}
}
