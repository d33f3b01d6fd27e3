package fsutil

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Fatalf("SyncDir of a real folder: %v", err)
	}
}

// TestSyncDirMissing: a missing folder is an error callers can tell apart (driver's removeFileDurable
// ignores it).
func TestSyncDirMissing(t *testing.T) {
	err := SyncDir(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("SyncDir of a missing folder: %v, want fs.ErrNotExist", err)
	}
}
