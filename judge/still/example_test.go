package still_test

import (
	"fmt"

	"github.com/rosorin/rosorin/judge/still"
)

// board50 is what a 50 Hz driver writes from 0 to 6 s: zero, then (from moveAt on) v.
func board50(moveAt float64, v still.Frame) []still.Frame {
	var f []still.Frame
	for k := 0; k <= 300; k++ {
		t := float64(k) * 0.02
		x := still.Frame{T: t}
		if t >= moveAt {
			x = v
			x.T = t
		}
		f = append(f, x)
	}
	return f
}

// A hold from 1 s (the e-stop reset) to 6 s while a publisher keeps sending 0.2 m/s: the board is told zero
// throughout, then (negative control) a driver that restores its stored speed 1.36 s into the hold.
func ExampleJudge() {
	p := still.DefaultParams()
	v := still.Judge(still.Input{Frames: board50(99, still.Frame{})}, 1, 6, p)
	fmt.Println(v.Line("e-stop reset, fwd 0.2"))
	v = still.Judge(still.Input{Frames: board50(2.35, still.Frame{VX: 0.2})}, 1, 6, p)
	fmt.Println(v.Line("driver restart, fwd 0.2"))
	fmt.Println(*v.FirstMotion > 1.35, v.BoardMotion != nil, v.MeasuredMotion == nil)
	v = still.Judge(still.Input{Frames: board50(0, still.Frame{VX: 0.2})}, 1, 6, p)
	fmt.Println(v.Line("moving already"))
	// Output:
	// e-stop reset, fwd 0.2              hold 5.00 s: board peak 0.000 in 251 frames  PASS
	// driver restart, fwd 0.2            hold 5.00 s: board peak 0.200 in 251 frames  FAIL: first motion 1.36 s into the hold: the board was told 0.20 m/s forward at 2.36 s (1.36 s into the hold)
	// true true true
	// moving already                     hold 5.00 s: board peak 0.200 in 251 frames  NOT RUN: moving at the start of the hold: the board was told 0.20 m/s forward at 1.00 s and held it into the hold
}
