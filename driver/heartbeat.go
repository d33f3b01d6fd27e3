package driver

import "github.com/rosorin/rosorin/driver/heartbeat"

// The control loop's liveness signal for the supervisor's watchdog (driver/supervisor watchdog.go); the
// bytes are driver/heartbeat's codec.
//
// Why from the loop itself: the board keeps the last wheel speed forever, and a driver that is alive but stuck
// (a deadlock, a loop spinning inside one tick, SIGSTOP) never exits, so the supervisor's crash-stop path never
// fires. A byte written by the loop after each tick is a sign that the goroutine that owns the gate is still
// deciding, every 20 ms, what the wheels do; a ticker in a goroutine of its own would keep beating through a
// deadlocked loop and prove nothing.

var beatTick = []byte{heartbeat.Tick}

// beat writes one heartbeat byte. The writer must never block (see Options.Heartbeat); a failed write is
// counted and logged once: the supervisor is stopped or gone, and the loop goes on regardless, because a
// driver that stopped deciding for want of a listener would be worse than one nobody watches.
func (r *loopState) beat(b []byte) {
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
