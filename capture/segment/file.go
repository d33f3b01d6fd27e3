package segment

import (
	"fmt"
	"sync"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// File is one recording at a path the user named, without rotation (capture tap, capture record): the same
// channels and writes as Segments. Write, WriteMessage and Close are for one goroutine; Stats from any.
type File struct {
	rec   *mcapfile.Recorder
	chans []*mcapfile.Channel
	mu    sync.Mutex
	st    SegmentStats
}

// CreateFile creates the recording at path (path.part while recording) with metadata md and the channels
// of specs.
func CreateFile(path string, md map[string]string, specs []ChannelSpec) (*File, error) {
	rec, err := mcapfile.Create(path, mcapfile.Options{Metadata: md})
	if err != nil {
		return nil, err
	}
	f := &File{rec: rec, chans: make([]*mcapfile.Channel, len(specs)), st: SegmentStats{Current: path, Segments: 1}}
	for i, sp := range specs {
		if sp.Kind != "" {
			f.chans[i], err = rec.RawChannel(sp.Topic, string(sp.Kind))
		} else {
			f.chans[i], err = rec.MessageChannel(sp.Topic, sp.Type)
		}
		if err != nil {
			rec.Close()
			return nil, fmt.Errorf("capture channel %s: %w", sp.Topic, err)
		}
	}
	return f, nil
}

// Write records one read or write of raw bytes on channel ch at t.
func (f *File) Write(ch int, t time.Time, data []byte) error {
	if err := f.rec.Write(f.chans[ch], t, data); err != nil {
		return err
	}
	f.count(len(data) + 12)
	return nil
}

// WriteMessage records one decoded message on channel ch at t.
func (f *File) WriteMessage(ch int, t time.Time, m rosmsg.Message) error {
	if err := f.rec.WriteMessage(f.chans[ch], t, m); err != nil {
		return err
	}
	f.count(64)
	return nil
}

func (f *File) count(payload int) {
	f.mu.Lock()
	f.st.Messages++
	f.st.Bytes += uint64(payload + recordOverhead)
	f.mu.Unlock()
}

// Stats returns the counters so far.
func (f *File) Stats() SegmentStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

// Close finishes the recording (rewritten into its indexed file; after a write error its .part is kept for
// `capture recover`).
func (f *File) Close() error { return f.rec.Close() }
