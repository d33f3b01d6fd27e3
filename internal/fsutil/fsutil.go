// Package fsutil holds the file-system steps the driver's durable files share: fsyncing a folder so that
// a file's creation, rename or removal in it survives a power loss (driver's latch file, driver/stoplog's
// segments).
package fsutil

import (
	"fmt"
	"os"
)

// SyncDir fsyncs the folder dir, which makes the creation, rename or removal of an entry in it durable.
// A folder that cannot be opened is the open's error as is (errors.Is(err, fs.ErrNotExist) holds for a
// missing one); a failed fsync or close names the folder.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fsync folder %s: %w", dir, err)
	}
	return nil
}
