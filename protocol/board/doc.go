// Package board is a pure codec for the ROSOrin controller board's serial protocol (an STM32 "RRC Lite"
// family board on /dev/ttyACM0, raw 8N1 at 1,000,000 baud): bytes in, values out, with no I/O, goroutines
// or clocks.
//
// Frame layout (reference/board-protocol.md in the shared documents):
//
//	AA 55 | func u8 | len u8 | payload[len] | crc8
//
// The checksum is CRC-8/MAXIM (reflected polynomial 0x8C, init 0, no final XOR) over func, len and the
// payload. Multi-byte fields are little-endian.
//
// Safety rules built into the API:
//   - The board has no motor watchdog: it keeps the last wheel speed forever. A NaN, an infinity or an absurd
//     speed must never reach the wire, so every motor encoder returns ErrNonFinite or ErrOutOfRange instead of
//     a frame; the caller decides what to send (normally StopFrame).
//   - The streaming Parser returns every valid frame exactly once whatever the chunking of its input, counts
//     bad checksums and unknown function codes, and after a bad checksum drops only the first header byte, so
//     an AA 55 inside a payload cannot swallow the real frame behind it.
//
// Errata and open points:
//   - The firmware defines no MODE bit for the gamepad; DefaultModeBit (bit 4, 0x0010, the unused gap between
//     START and L3) is this toolkit's assumption, kept as a parameter by the driver (pad_mode_bit).
//   - Some firmware versions lack OLED (10) or RGB (11); both are accepted as known codes, anything from
//     FuncCount (12) up is invalid, as in the firmware's own parser.
//   - Servo frames (BUS_SERVO, the arm) are parsed as frames but not decoded: out of scope for now.
package board
