package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// runCmd runs the command line in-process (the real cli app, flags and all) and returns its output.
func runCmd(t *testing.T, stdin io.Reader, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var o, e bytes.Buffer
	code = run(append([]string{"capture"}, args...), stdin, &o, &e)
	return o.Bytes(), e.Bytes(), code
}

// summaryJSON is the summary line of either kind.
type summaryJSON struct {
	Kind         string            `json:"kind"`
	Input        string            `json:"input"`
	Bytes        uint64            `json:"bytes"`
	Frames       *uint64           `json:"frames"`
	Packets      *uint64           `json:"packets"`
	RingStarts   uint64            `json:"ring_starts"`
	BadChecksum  uint64            `json:"bad_checksum"`
	UnknownFunc  uint64            `json:"unknown_func"`
	SkippedBytes uint64            `json:"skipped_bytes"`
	PendingBytes uint64            `json:"pending_bytes"`
	BadPayload   uint64            `json:"bad_payload"`
	ByFunc       map[string]uint64 `json:"by_func"`
}

func (s summaryJSON) records() uint64 {
	if s.Frames != nil {
		return *s.Frames
	}
	if s.Packets != nil {
		return *s.Packets
	}
	return 0
}

type recordJSON struct {
	Kind   string `json:"kind"`
	Offset int64  `json:"offset"`
	Size   int    `json:"size"`
	Func   string `json:"func"`
	Error  string `json:"error"`
}

// parseOutput splits the output into records and the final summary, failing on anything malformed.
func parseOutput(t *testing.T, out []byte) ([]recordJSON, summaryJSON) {
	t.Helper()
	lines := bytes.Split(bytes.TrimRight(out, "\n"), []byte("\n"))
	var recs []recordJSON
	for _, l := range lines[:len(lines)-1] {
		var r recordJSON
		if err := json.Unmarshal(l, &r); err != nil || (r.Kind != "board" && r.Kind != "lidar") {
			t.Fatalf("bad record line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	var s summaryJSON
	if err := json.Unmarshal(lines[len(lines)-1], &s); err != nil || s.Kind != "summary" {
		t.Fatalf("last line %q is not a summary: %v", lines[len(lines)-1], err)
	}
	return recs, s
}

func checkOutputAccounting(t *testing.T, recs []recordJSON, s summaryJSON) {
	t.Helper()
	var rb uint64
	for _, r := range recs {
		rb += uint64(r.Size)
	}
	if uint64(len(recs)) != s.records() || rb+s.SkippedBytes+s.PendingBytes != s.Bytes {
		t.Fatalf("%d records (summary %d), %d record bytes + %d skipped + %d pending != %d bytes",
			len(recs), s.records(), rb, s.SkippedBytes, s.PendingBytes, s.Bytes)
	}
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDecodeStdinMatchesFile(t *testing.T) {
	for _, s := range samples {
		data, _ := s.gen(t)
		path := writeTemp(t, s.name, data)
		fromFile, _, code1 := runCmd(t, nil, "decode", "--kind", s.kind, path)
		fromStdin, _, code2 := runCmd(t, bytes.NewReader(data), "decode", "-k", s.kind, "-")
		if code1 != 0 || code2 != 0 || !bytes.Equal(fromFile, fromStdin) {
			t.Fatalf("%s: file (exit %d) and stdin (exit %d) outputs differ", s.name, code1, code2)
		}
		only, _, code := runCmd(t, nil, "decode", "--summary-only", "--kind", s.kind, path)
		lines := bytes.Split(bytes.TrimSpace(fromFile), []byte("\n"))
		if code != 0 || !bytes.Equal(bytes.TrimSpace(only), lines[len(lines)-1]) {
			t.Fatalf("--summary-only printed %q", only)
		}
	}
}

// TestDecodeBadInputNeverFails: empty files, random bytes, every truncation of the samples, and each sample
// decoded as the other kind all give a summary and exit 0.
func TestDecodeBadInputNeverFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	inputs := map[string][]byte{"empty": nil, "random": random, "one AA": {0xAA}, "header only": {0xAA, 0x55}}
	for _, s := range samples {
		data, _ := s.gen(t)
		for cut := 0; cut < len(data); cut += 97 {
			inputs[s.name+" cut at "+itoa(cut)] = data[:cut]
		}
	}
	for name, data := range inputs {
		path := writeTemp(t, "in.bin", data)
		for _, kind := range []string{"board", "lidar"} {
			stdout, stderr, code := runCmd(t, nil, "decode", "--kind", kind, path)
			if code != 0 || len(stderr) != 0 {
				t.Fatalf("%s as %s: exit %d, stderr %s", name, kind, code, stderr)
			}
			recs, sum := parseOutput(t, stdout)
			checkOutputAccounting(t, recs, sum)
			if sum.Bytes != uint64(len(data)) || sum.Input != kind {
				t.Fatalf("%s as %s: summary %+v", name, kind, sum)
			}
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestDecodeUsageAndFileErrors(t *testing.T) {
	dir := t.TempDir()
	file := writeTemp(t, "ok.bin", []byte{0xAA, 0x55, 0x00, 0x03, 0x04, 0xE8, 0x1C, 0x2B})
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"missing file", []string{"decode", "--kind", "board", filepath.Join(dir, "nope.bin")}, "does not exist"},
		{"directory", []string{"decode", "--kind", "lidar", dir}, "is a directory"},
		{"unknown kind", []string{"decode", "--kind", "gps", file}, "use board"},
		{"no kind", []string{"decode", file}, "--kind board or --kind lidar"},
		{"no file", []string{"decode", "--kind", "board"}, "got 0 arguments"},
		{"two files", []string{"decode", "--kind", "board", file, file}, "got 2 arguments"},
		{"flag after file", []string{"decode", file, "--kind", "board"}, "flags such as --kind go before FILE"},
	}
	if runtime.GOOS != "windows" && os.Getuid() != 0 { // root reads anything
		unreadable := writeTemp(t, "secret.bin", []byte{1})
		if err := os.Chmod(unreadable, 0); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"unreadable", []string{"decode", "--kind", "board", unreadable}, "permission denied"})
	}
	for _, c := range cases {
		stdout, stderr, code := runCmd(t, nil, c.args...)
		if code != 1 || !strings.Contains(string(stderr), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.name, code, stderr, c.want)
		}
		if bytes.Contains(stdout, []byte(`"kind":"summary"`)) {
			t.Errorf("%s: printed a summary line on failure", c.name)
		}
	}
	if stdout, _, code := runCmd(t, nil, "decode", "--kind", "board", file); code != 0 || !bytes.Contains(stdout, []byte(`"millivolts":7400`)) {
		t.Errorf("control case: exit %d, %s", code, stdout)
	}
}

// failWriter fails after n bytes, like a closed pipe.
type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	if w.n < len(b) {
		return 0, errors.New("broken pipe")
	}
	w.n -= len(b)
	return len(b), nil
}

func TestDecodeOutputError(t *testing.T) {
	data, _ := boardSample(t)
	path := writeTemp(t, "b.bin", data)
	var e bytes.Buffer
	code := run([]string{"capture", "decode", "--kind", "board", path}, nil, &failWriter{100}, &e)
	if code != 1 || !strings.Contains(e.String(), "broken pipe") {
		t.Fatalf("exit %d, stderr %q", code, e.String())
	}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// buildBinary builds the real command once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "capture-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "capture")
		out, err := exec.Command(goTool, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building cmd/capture: %v", buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// TestBinary runs the built command as a user would: on the sample capture files, on stdin, and on a
// missing file, checking exit statuses and that the output equals the in-process run.
func TestBinary(t *testing.T) {
	bin := buildBinary(t)
	for _, s := range samples {
		path := filepath.Join(capturesDir, s.name)
		want, _, _ := runCmd(t, nil, "decode", "--kind", s.kind, path)
		got, err := exec.Command(bin, "decode", "--kind", s.kind, path).Output()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v; binary output differs from the in-process run", s.name, err)
		}
		cmd := exec.Command(bin, "decode", "--kind", s.kind, "-")
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin = f
		got, err = cmd.Output()
		f.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s on stdin: %v", s.name, err)
		}
	}
	cmd := exec.Command(bin, "decode", "--kind", "board", filepath.Join(t.TempDir(), "missing.bin"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "does not exist") {
		t.Fatalf("missing file: %v, stderr %q; want exit status 1 and a message", err, stderr.String())
	}
}
