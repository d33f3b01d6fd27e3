package supervisor

import (
	"io"
	"time"

	"github.com/rosorin/rosorin/driver/childproc"
)

// readTxTap reads a driver's tx tap (childproc.ReadTxTap) until its end, the driver's death.
func readTxTap(r io.Reader, put func(at time.Time, data []byte)) (lost uint64, err error) {
	return childproc.ReadTxTap(r, put)
}
