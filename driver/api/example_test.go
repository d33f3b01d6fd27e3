package api_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

func ExampleParseTwist() {
	// Both shapes mean the same command; the values are checked by the driver's gate, not here.
	a, _ := api.ParseTwist([]byte(`{"vx":0.1,"wz":0.5}`))
	b, _ := api.ParseTwist([]byte(`{"linear":{"x":0.1},"angular":{"z":0.5}}`))
	_, err := api.ParseTwist([]byte(`{"vx":NaN}`))
	fmt.Println(a == b, a)
	fmt.Println(err != nil)
	// Output:
	// true {0.1 0 0.5}
	// true
}

// A publisher: one stream is one publisher for the two-publisher rule; commands at 20 Hz; the deadman stops
// the wheels 0.3 s after the last one.
func ExampleClient_StreamCmdVel() {
	cl := api.NewClient(api.DefaultSocket)
	ctx := context.Background()
	if r, err := cl.Enable(ctx, true); err != nil || !r.Success {
		fmt.Println("enable:", r.Message, err)
		return
	}
	s, err := cl.StreamCmdVel(ctx)
	if err != nil {
		fmt.Println(err) // no driver at /run/rosorin/base.sock (is rosorin-base running? pass --socket)
		return
	}
	for range 40 {
		if err := s.Send(api.Twist{VX: 0.1}); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err := s.Close()
	fmt.Println(res.Accepted, err)
}

// The LiDAR reader's side: one long-lived stream; the driver's scan gate counts arrivals.
func ExampleClient_StreamScans() {
	cl := api.NewClient(api.DefaultSocket)
	s, err := cl.StreamScans(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	_ = s.Send(api.Scan{Stamp: time.Now(), FrameID: "laser", ScanTime: 0.1, AngleIncrement: 0.0157,
		RangeMin: 0.12, RangeMax: 8, Ranges: api.Ranges{1.5, 1.6}})
}
