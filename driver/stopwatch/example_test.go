package stopwatch_test

import (
	"fmt"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/stopwatch"
)

// The control loop's use: every stream fed with its own instant, the stop told, Poll each tick.
func Example() {
	w, err := stopwatch.New(stopwatch.DefaultParams())
	if err != nil {
		panic(err)
	}
	start := time.Now() // the driver's clock seam in real code
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	for ms := 0; ms < 2000; ms += 10 {
		w.Commanded(at(ms), [3]float64{0.2, 0, 0})
		w.IMU(at(ms), [3]float32{-1.7, -1.6, 0.05})
	}
	timed := w.Trigger(stopwatch.Trigger{Kind: api.StopEStop, Reason: "estop request from pid 812 (teleop)",
		At: at(2000), Wall: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), UptimeS: 2})
	fmt.Println("timed:", timed, "active:", w.Active())
	for _, r := range w.Flush(at(2100)) { // a shutdown; a running driver calls Poll every tick instead
		fmt.Println(r.Kind, r.Direction, r.Speed, r.Outcome, r.Confidence)
	}
	// Output:
	// timed: true active: true
	// estop fwd 0.2 FAIL interrupted
}
