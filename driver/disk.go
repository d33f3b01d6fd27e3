package driver

import (
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
		f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(j.data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	tmp := j.path + ".tmp"
	if err := os.WriteFile(tmp, j.data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, j.path)
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
