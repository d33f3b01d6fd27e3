package target

import (
	"errors"
	"fmt"
	"os"

	"github.com/rosorin/rosorin/serialport"
)

// errPortHeld means another process owns the port (its exclusive open or its advisory lock).
var errPortHeld = errors.New("port held by another process")

// openPortReadOnly opens the board's port for reading only, without taking it, through serialport (the
// driver's own way of opening it: raw 8N1 at 1,000,000 baud before the first read, so a cooked tty never
// echoes the board's bytes back to it): ReadOnly, and no Exclusive, so no TIOCEXCL and no flock, and
// stop-motors and a restarting supervisor can still open it. It refuses (errPortHeld) when /proc/locks shows
// another process holding the port's advisory lock, the proof's rule of never reading a port someone owns.
//
// The input queue is flushed on open (serialport's default): the proof stamps every sample on receipt,
// and frames queued in the tty while nobody read it (the seconds after a driver died) would otherwise be
// stamped with the moment of the open, a burst of old vibration at the wrong time. The cost is a race of
// well under a millisecond: a supervisor that locks the port between the lock check and the flush loses the
// bytes it had not read yet, as it does on its own open.
func openPortReadOnly(device string) (*os.File, error) {
	if held, who := portLocked(device); held {
		return nil, fmt.Errorf("%s: %w (%s)", device, errPortHeld, who)
	}
	f, err := serialport.Open(device, serialport.Options{Baud: serialport.BoardBaud, ReadOnly: true})
	if err != nil {
		if serialport.IsBusy(err) { // TIOCEXCL: an owner that holds the port without a lock
			return nil, fmt.Errorf("%w: %w", errPortHeld, err)
		}
		return nil, err
	}
	return f, nil
}
