package driver

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// diskWriter does the driver's few file writes (plugged.json, battery CSV) off the control loop: a slow SD card
// must not stall a tick. A full queue drops the job and counts it.
type diskWriter struct {
	log     *slog.Logger
	ch      chan diskJob
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	dropped uint64
	failed  uint64
}

type diskJob struct {
	path   string
	data   []byte
	append bool // append a line; else replace the file atomically
}

func newDiskWriter(log *slog.Logger) *diskWriter {
	d := &diskWriter{log: log, ch: make(chan diskJob, 16), done: make(chan struct{})}
	go d.run()
	return d
}

func (d *diskWriter) put(j diskJob) {
	select {
	case d.ch <- j:
	default:
		d.mu.Lock()
		d.dropped++
		d.mu.Unlock()
	}
}

func (d *diskWriter) run() {
	defer close(d.done)
	for j := range d.ch {
		if err := j.write(); err != nil {
			d.mu.Lock()
			d.failed++
			n := d.failed
			d.mu.Unlock()
			if n == 1 || n%100 == 0 {
				d.log.Warn("state file not written", "path", j.path, "err", err, "count", n)
			}
		}
	}
}

// close writes what is queued and waits. Idempotent.
func (d *diskWriter) close() {
	d.once.Do(func() { close(d.ch) })
	<-d.done
}

func (j diskJob) write() error {
	if err := os.MkdirAll(filepath.Dir(j.path), 0o755); err != nil {
		return err
	}
	if j.append {
		return appendLine(j.path, j.data)
	}
	// plugged.json: replaced durably (temporary file, fsync, rename, fsync of the folder), so a power cut
	// leaves the old state or the new, never an empty or half-written file.
	return writeFileDurable(j.path, j.data, 0o644)
}

// appendLine appends data (whole lines) to the log at path. A log that does not end in a newline was cut in
// the middle of a line (power lost during a write): the partial line is cut off first, so every line a
// reader sees is whole and the new one does not run into the old fragment.
func appendLine(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	err = trimPartialLine(f)
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// trimPartialLine truncates f back to just after its last newline (to empty when it has none) when it does not
// end in one. Only the tail is read.
func trimPartialLine(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size == 0 {
		return nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	buf := make([]byte, 4096)
	end := size
	for end > 0 {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return f.Truncate(end - n + int64(i) + 1)
		}
		end -= n
	}
	return f.Truncate(0)
}

func readFileLimit(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over %d bytes", path, limit)
	}
	return b, nil
}
