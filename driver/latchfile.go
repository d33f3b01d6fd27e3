package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rosorin/rosorin/internal/fsutil"
)

// The durable e-stop latch (issue 31, "the latch survives"). The gate's latch lives in the driver's memory, and
// the supervisor hands it from a dead driver to the next (Options.StartLatched). Neither survives the supervisor:
// a supervisor crash, a `systemctl restart` or a reboot would otherwise clear a latched e-stop that nobody
// reset. So the latch is also kept in the state directory, as LatchFileName:
//
//	{"version": 1, "latched": true, "reason": "estop request from ...", "source": "api",
//	 "time": "2026-12-04T18:40:00.123456789Z", "driver_pid": 4242}
//
// It is written (persist.go) after the stop frame reached the port, never before and never from the control
// loop, through a temporary file, fsync, rename and an fsync of the folder; a reset removes it (and fsyncs the
// folder). At start the driver reads it (loadLatch): a latched record starts the driver latched; a file that
// cannot be read or trusted (corrupt, too large, a newer format) starts it latched as well, with a reason that
// names the file: only a missing file means "not latched".

// LatchFileName is the latch's file in the state directory.
const LatchFileName = "estop.json"

// LatchFormat is the latch file's format version. A file of a newer version is not understood, and is never
// taken for "not latched" nor overwritten at start.
const LatchFormat = 1

// latchFileLimit bounds what is read: a record is a few hundred bytes; a larger file is not ours.
const latchFileLimit = 64 << 10

// latchRecord is the latch file's content.
type latchRecord struct {
	Version int       `json:"version"`
	Latched bool      `json:"latched"`
	Reason  string    `json:"reason,omitempty"`
	Source  string    `json:"source,omitempty"`
	Time    time.Time `json:"time"`
	PID     int       `json:"driver_pid,omitempty"`
}

// errLatchNewer is wrapped by parseLatch for a file of a newer format version.
var errLatchNewer = errors.New("newer format version")

// parseLatch reads a latch record. It is strict: anything but a complete record of a known version is an
// error, which the caller turns into a latch (loadLatch).
func parseLatch(b []byte) (latchRecord, error) {
	var rec latchRecord
	if len(bytes.TrimSpace(b)) == 0 {
		return rec, errors.New("empty file")
	}
	// The version first, on its own: a newer format may change every other field.
	var v struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return rec, fmt.Errorf("not a latch record: %w", err)
	}
	switch {
	case v.Version == nil:
		return rec, errors.New("no format version")
	case *v.Version > LatchFormat:
		return rec, fmt.Errorf("%w %d (this driver reads %d)", errLatchNewer, *v.Version, LatchFormat)
	case *v.Version < 1:
		return rec, fmt.Errorf("bad format version %d", *v.Version)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&rec); err != nil {
		return latchRecord{}, fmt.Errorf("not a latch record: %w", err)
	}
	// One more token must be the end (Decoder.More alone says "no more" before a stray ']' or '}').
	if _, err := d.Token(); err != io.EOF {
		return latchRecord{}, errors.New("trailing data after the record")
	}
	if !utf8.ValidString(rec.Reason) || !utf8.ValidString(rec.Source) {
		return latchRecord{}, errors.New("reason is not UTF-8")
	}
	if rec.Latched && strings.TrimSpace(rec.Reason) == "" {
		rec.Reason = "unspecified" // as Gate.Trip says it: still latched
	}
	return rec, nil
}

// marshalLatch is the file's content for rec (the version is set here).
func marshalLatch(rec latchRecord) []byte {
	rec.Version = LatchFormat
	b, _ := json.Marshal(rec) // strings, bools, ints and a time: cannot fail
	return append(b, '\n')
}

// latchLoad is what the state directory said about the latch at start.
type latchLoad struct {
	path string
	// reason is the latch to start with ("" not latched): the record's reason, or why the file could not be
	// trusted.
	reason string
	rec    latchRecord // the record read (valid when err == nil and found)
	found  bool        // the file exists
	err    error       // the file exists but could not be read or trusted (then reason is set)
}

// loadLatch reads the latch file in dir. dir "" (no state directory): nothing is kept, nothing is latched.
func loadLatch(dir string) latchLoad {
	if dir == "" {
		return latchLoad{}
	}
	ld := latchLoad{path: filepath.Join(dir, LatchFileName)}
	b, err := readFileLimit(ld.path, latchFileLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return ld // the first start, or the last latch was reset
	}
	ld.found = true
	if err == nil {
		ld.rec, err = parseLatch(b)
	}
	switch {
	case errors.Is(err, errLatchNewer):
		ld.err = err
		ld.reason = fmt.Sprintf("e-stop latch file %s has a %v: latched to be safe; check it, then reset", ld.path, err)
	case err != nil:
		ld.err = err
		ld.reason = fmt.Sprintf("e-stop latch file %s unreadable (%v): latched to be safe; check it, then reset", ld.path, oneLineErr(err))
	case ld.rec.Latched:
		ld.reason = fmt.Sprintf("e-stop latched before the restart: %s (kept in %s)", ld.rec.Reason, ld.path)
	}
	return ld
}

func oneLineErr(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// startLatchReason is the reason the driver starts latched with ("" none): the supervisor's (Options.StartLatched,
// the latch of the driver before this one within the service, or how it ended) and the file's. When both are
// set and the supervisor's already holds the file's (a latched driver restarted by its supervisor: its final
// word is the reason it got from the file), the supervisor's alone, so that restarts do not nest the reason.
func startLatchReason(supervisor string, ld latchLoad) string {
	switch {
	case ld.reason == "":
		return supervisor
	case supervisor == "":
		return ld.reason
	case strings.Contains(supervisor, ld.reason):
		return supervisor
	case ld.err == nil && ld.rec.Reason != "" && strings.Contains(supervisor, ld.rec.Reason):
		return supervisor // the same latch, handed over by the supervisor as the driver had it
	}
	return supervisor + "; " + ld.reason
}

// latchSource names where a latch came from, by its reason's wording (the gate keeps only the reason): "api",
// "publishers", "gamepad", "key", "contact", "restart" (the supervisor's start-latched), "board" (the board fell
// silent: checkBoardSilence), "file" (read at start) or "" when unknown.
func latchSource(reason string) string {
	switch {
	case strings.HasPrefix(reason, "estop request from"):
		return "api"
	case strings.HasPrefix(reason, "multiple ") && strings.HasSuffix(reason, "publishers"):
		return "publishers"
	case strings.HasPrefix(reason, "gamepad "):
		return "gamepad"
	case strings.HasPrefix(reason, "contact:"):
		return "contact"
	case strings.HasPrefix(reason, "key") && len(reason) > 3 && reason[3] >= '0' && reason[3] <= '9':
		return "key"
	case strings.HasPrefix(reason, "e-stop latched before the restart") || strings.HasPrefix(reason, "e-stop latch file"):
		return "file"
	case strings.HasPrefix(reason, "driver restarted after") || strings.HasPrefix(reason, "board port reopened"):
		return "restart"
	case strings.HasPrefix(reason, "board silent for"):
		return "board"
	}
	return ""
}

// writeFileDurable replaces path with data so that after a crash or power loss the file holds either the old
// content or the new, whole: a temporary file in the same folder, fsync, rename over path, fsync of the folder
// (without the last, the rename itself may be lost).
func writeFileDurable(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		ok = true
		return err
	}
	ok = true
	return fsutil.SyncDir(dir)
}

// removeFileDurable removes path (a missing one is not an error) and fsyncs its folder, so the removal
// survives a power loss.
func removeFileDurable(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := fsutil.SyncDir(filepath.Dir(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
