package driver

import (
	"os"
	"path/filepath"
	"testing"
)

// TestBatteryLogWholeLines: a log cut in the middle of a line (power lost during a write) is cut back to its
// last whole line before the next line is appended; whole logs are appended to as they are.
func TestBatteryLogWholeLines(t *testing.T) {
	for _, c := range []struct{ name, before, want string }{
		{"new file", "-", "3,12000,0\n"},
		{"empty", "", "3,12000,0\n"},
		{"whole", "1,12400,0\n2,12300,1\n", "1,12400,0\n2,12300,1\n3,12000,0\n"},
		{"partial last line", "1,12400,0\n2,123", "1,12400,0\n3,12000,0\n"},
		{"only a partial line", "1,124", "3,12000,0\n"},
		{"zeros after a power cut", "1,12400,0\n\x00\x00\x00", "1,12400,0\n3,12000,0\n"},
		{"long partial line", "1,12400,0\n" + string(make([]byte, 10000)), "1,12400,0\n3,12000,0\n"},
	} {
		path := filepath.Join(t.TempDir(), "battery", "20261204.csv")
		if c.before != "-" {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(c.before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := (diskJob{path: path, data: []byte("3,12000,0\n"), append: true}).write(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != c.want {
			t.Errorf("%s: %q, want %q", c.name, b, c.want)
		}
	}
}

// TestPluggedReplacedDurably: plugged.json is replaced whole (no temporary file left beside it).
func TestPluggedReplacedDurably(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plugged.json")
	for _, data := range []string{`{"plugged":true}`, `{"plugged":false}`} {
		if err := (diskJob{path: path, data: []byte(data)}).write(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != data {
			t.Fatalf("%q, want %q", b, data)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("files: %v", ents)
	}
}
