// Package heartbeat is the codec of the one-way pipe from the driver's control loop to its supervisor's
// watchdog: the bytes the driver writes (driver/heartbeat.go) and the supervisor reads
// (driver/supervisor watchdog.go). Pure: bytes in, values out.
//
// The stream is Tick bytes, one when the loop starts and one after every control tick, then, once, the final
// word written after the driver's final stop frames: Stopping, then "U\n" (the e-stop not latched) or
// "L" + reason + "\n" (latched). Every byte before Stopping is a sign of life, whatever its value.
package heartbeat

import "bytes"

const (
	// Tick is written once when the control loop starts and once after every control tick.
	Tick byte = '.'
	// Stopping opens the final word: the loop has ended on purpose and the wheels have been told to stop;
	// what follows is teardown, which may take longer than one tick without the driver being hung.
	Stopping byte = 'q'
)

// MaxReason bounds the latch reason in a final word (an e-stop request's reason comes from a client).
const MaxReason = 256

// FinalWord encodes the final word for the e-stop latch as it was when the loop ended ("" = not latched).
// Control characters in the reason become spaces, and it is cut at MaxReason bytes.
//
// Why one write: a latched e-stop lives in the driver process, and the next driver the supervisor starts must
// keep it. A write of at most PIPE_BUF bytes on a pipe is all or nothing, so a supervisor that saw Stopping
// also has the latch line; one that did not treats the exit as unclean and starts the next driver latched.
func FinalWord(latch string) []byte {
	if latch == "" {
		return []byte{Stopping, 'U', '\n'}
	}
	b := []byte{Stopping, 'L'}
	for i := 0; i < len(latch) && i < MaxReason; i++ {
		c := latch[i]
		if c < 0x20 || c == 0x7f {
			c = ' '
		}
		b = append(b, c)
	}
	return append(b, '\n')
}

// ParseFinalWord decodes a final word (Stopping and what followed it). ok is false for anything else (cut
// short, garbled, missing): the e-stop state is then unknown, and the caller must assume it latched.
func ParseFinalWord(b []byte) (latch string, ok bool) {
	if len(b) < 3 || b[0] != Stopping || b[len(b)-1] != '\n' {
		return "", false
	}
	line := b[1 : len(b)-1]
	switch {
	case len(line) == 1 && line[0] == 'U':
		return "", true
	case len(line) > 1 && line[0] == 'L' && bytes.IndexByte(line, '\n') < 0:
		return string(line[1:]), true
	}
	return "", false
}
