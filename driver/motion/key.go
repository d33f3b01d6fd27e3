package motion

import "fmt"

// Board key events (func 6 payload byte 1), from ../shared/reference/board-protocol.md.
const (
	KeyPressed        uint8 = 0x01
	KeyLongPress      uint8 = 0x02
	KeyLongRepeat     uint8 = 0x04
	KeyReleaseFromLP  uint8 = 0x08
	KeyReleaseFromSP  uint8 = 0x10
	KeyClick          uint8 = 0x20
	KeyDouble         uint8 = 0x40
	KeyTriple         uint8 = 0x80
	keyTripEventsMask       = KeyPressed | KeyLongPress | KeyClick
)

// KeyTrip decides on a board key frame (key id, event): it returns the e-stop reason "key<id>" when id is the
// configured e-stop key (estop_key, default 1; 0 or less turns key trips off) and the event contains PRESSED,
// LONGPRESS or CLICK; otherwise "". Any trip event bit counts, so an unexpected combination stops rather than
// being missed. (The board's key1 is not reachable on the assembled robot; the gamepad is the physical e-stop,
// decision 2026-09-27. The key path is kept for the bench.)
func KeyTrip(id, event uint8, estopKey int) string {
	if estopKey <= 0 || int(id) != estopKey || event&keyTripEventsMask == 0 {
		return ""
	}
	return fmt.Sprintf("key%d", id)
}
