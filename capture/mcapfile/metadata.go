package mcapfile

import (
	"fmt"

	"github.com/foxglove/mcap/go/mcap"
)

// WriteMetadata adds a metadata record (name, key/value pairs) at the current position of the recording:
// the proofs attach their JSON record this way at the end of a run. Rewrite copies metadata records into the
// finished file (attachments it does not), so a metadata record survives Close and `capture recover`.
func (r *Recorder) WriteMetadata(name string, md map[string]string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usableLocked(); err != nil {
		return err
	}
	if err := r.w.WriteMetadata(&mcap.Metadata{Name: name, Metadata: md}); err != nil {
		r.err = fmt.Errorf("recording stopped: %w", err)
		return r.err
	}
	r.dirty = true
	return nil
}
