package ramp_test

import (
	"fmt"

	"github.com/rosorin/rosorin/judge/ramp"
	"github.com/rosorin/rosorin/judge/still"
)

// board is what a 50 Hz driver writes from 0 to 4 s: zero until the command at 1.1 s, then its ramp to
// 0.2 m/s forward at 0.5 m/s² (0.01 m/s a tick); stored makes the first frame after the command the stored
// 0.2 m/s instead.
func board(stored bool) []still.Frame {
	var f []still.Frame
	v := 0.0
	for k := 0; k <= 200; k++ {
		t := float64(k) * 0.02
		if t >= 1.1-1e-9 {
			v = min(0.2, v+0.01)
			if stored {
				v = 0.2
			}
		}
		f = append(f, still.Frame{T: t, VX: v})
	}
	return f
}

// The enable at 1.0 s, the first command after it at 1.1 s: the ramp from zero passes; a driver that restores
// the speed it had before the event (negative control) fails the ramp check.
func ExampleJudge() {
	in := ramp.Input{Frames: board(false), Enable: 1.0, Command: 1.1, Target: ramp.Twist{VX: 0.2}, To: 4}
	fmt.Println(ramp.Judge(in, ramp.DefaultParams()).Line("resume after e-stop reset"))
	in.Frames = board(true)
	v := ramp.Judge(in, ramp.DefaultParams())
	fmt.Println(v.Line("resume after driver restart"))
	fmt.Println(v.Failed(ramp.CheckRamp), v.Failed(ramp.CheckBurst))
	// Output:
	// resume after e-stop reset          command 0.10 s after the enable, target 0.20 m/s forward: reached in 0.36 s (ramp 0.40 s, limit 0.97 s), peak 0.200  PASS
	// resume after driver restart        command 0.10 s after the enable, target 0.20 m/s forward: reached in 0.00 s (ramp 0.40 s, limit 0.97 s), peak 0.200  FAIL: jumped to 0.20 m/s forward 0.00 s after the first command: the ramp allows 0.035 m/s: a stored speed
	// true false
}
