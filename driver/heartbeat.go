package driver

// The control loop's liveness signal for the supervisor's watchdog (driver/supervisor watchdog.go).
//
// Why from the loop itself: the board keeps the last wheel speed forever, and a driver that is alive but stuck
// (a deadlock, a loop spinning inside one tick, SIGSTOP) never exits, so the supervisor's crash-stop path never
// fires. A byte written by the loop after each tick is a sign that the goroutine that owns the gate is still
// deciding, every 20 ms, what the wheels do; a ticker in a goroutine of its own would keep beating through a
// deadlocked loop and prove nothing.

// Heartbeat bytes written to Options.Heartbeat.
const (
	// HeartbeatTick is written once when the loop starts and once after every control tick.
	HeartbeatTick byte = '.'
	// HeartbeatStopping is written once after Run's final stop frames: the loop has ended on purpose and the
	// wheels have been told to stop; what follows is teardown (socket, goroutines), which may take longer than
	// one tick without the driver being hung. It is the first byte of the final word (FinalWord).
	HeartbeatStopping byte = 'q'
)

// FinalWord is what Run writes to the heartbeat after its final stop frames, in one write: HeartbeatStopping
// followed by the e-stop latch as it was when the loop ended, "U\n" (not latched) or "L" + reason + "\n"
// (latched; control characters in the reason become spaces, and it is cut at MaxFinalReason bytes).
//
// Why: a latched e-stop lives in the gate, in this process. When the driver exits and the supervisor starts
// another, the latch must survive (driver/supervisor restartLatch): the supervisor learns it here. One write of
// at most PIPE_BUF bytes on a pipe is all or nothing, so a supervisor that saw the stopping byte also has the
// latch line; one that did not see it treats the exit as unclean and starts the next driver latched anyway.
func FinalWord(latch string) []byte {
	if latch == "" {
		return []byte{HeartbeatStopping, 'U', '\n'}
	}
	b := []byte{HeartbeatStopping, 'L'}
	for i := 0; i < len(latch) && i < MaxFinalReason; i++ {
		c := latch[i]
		if c < 0x20 || c == 0x7f {
			c = ' '
		}
		b = append(b, c)
	}
	return append(b, '\n')
}

// MaxFinalReason bounds the latch reason in FinalWord (an e-stop request's reason comes from a client).
const MaxFinalReason = 256

var beatTick = []byte{HeartbeatTick}

// beat writes one heartbeat byte. The writer must never block (see Options.Heartbeat); a failed write is
// counted and logged once: the supervisor is stopped or gone, and the loop goes on regardless, because a
// driver that stopped deciding for want of a listener would be worse than one nobody watches.
func (r *runtime) beat(b []byte) {
	if r.o.Heartbeat == nil {
		return
	}
	if _, err := r.o.Heartbeat.Write(b); err != nil {
		r.beatErrors++
		if r.beatErrors == 1 {
			r.log.Error("heartbeat write failed: the supervisor is not reading it (stopped or gone); the control loop goes on",
				"err", err)
		}
		return
	}
	r.beats++
}
