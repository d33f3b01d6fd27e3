package motion

import (
	"fmt"

	"github.com/rosorin/rosorin/protocol/board"
)

// keyTripEvents are the board key events (board.KeyPressed and friends, func 6 payload byte 1, from
// ../shared/reference/board-protocol.md) that trip the e-stop. The event bits are defined once, in
// protocol/board, next to the codec that decodes them.
const keyTripEvents = board.KeyPressed | board.KeyLongPress | board.KeyClick

// KeyTrip decides on a board key frame (key id, event): it returns the e-stop reason "key<id>" when id is the
// configured e-stop key (estop_key, default 1; 0 or less turns key trips off) and the event contains PRESSED,
// LONGPRESS or CLICK; otherwise "". Any trip event bit counts, so an unexpected combination stops rather than
// being missed. (The board's key1 is not reachable on the assembled robot; the gamepad is the physical e-stop,
// decision 2026-09-27. The key path is kept for the bench.)
func KeyTrip(id, event uint8, estopKey int) string {
	if estopKey <= 0 || int(id) != estopKey || event&keyTripEvents == 0 {
		return ""
	}
	return fmt.Sprintf("key%d", id)
}
