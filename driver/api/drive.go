package api

import (
	"context"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/motion"
)

// DriveConfig is one `rosorin-base drive`: publish Twist at Rate over one stream for For, then stop.
type DriveConfig struct {
	Twist Twist
	For   time.Duration
	Rate  float64 // Hz, 1..100
	// Coast ends by silence (the driver's deadman stops the wheels CmdTimeout later) instead of a final zero
	// command.
	Coast bool
	// Input is the velocity input ("manual", "autonomous", "cmd_vel"; "" is cmd_vel).
	Input string
	// Clock paces the commands and ends the drive (clock.Real{}).
	Clock clock.Full
}

// DriveResult is what a Drive did.
type DriveResult struct {
	Opened  bool         // the stream was opened (else nothing was sent)
	Sent    int          // commands sent, the final zero not counted
	Stopped bool         // the final zero command went out (the wheels stop at the driver's next tick)
	Stream  StreamResult // the driver's count of the stream
}

// Check refuses a rate outside 1..100 Hz, a duration that is not positive and an unknown input.
func (d DriveConfig) Check() error {
	if _, err := motion.ParseInput(d.Input); err != nil {
		return fmt.Errorf("drive: --input: %w", err)
	}
	if !(d.Rate >= 1 && d.Rate <= 100) {
		return fmt.Errorf("drive: --rate %v out of 1..100 Hz", d.Rate)
	}
	if d.For <= 0 {
		return fmt.Errorf("drive: --for %v must be > 0", d.For)
	}
	return nil
}

// Drive publishes d.Twist over one cmd_vel stream until d.For has passed or ctx ends, then sends a zero
// command (unless d.Coast) and closes the stream. ctx's end is a normal end (Ctrl-C): the stream still ends
// cleanly, with the zero command.
func (c *Client) Drive(ctx context.Context, d DriveConfig) (DriveResult, error) {
	var res DriveResult
	if err := d.Check(); err != nil {
		return res, err
	}
	s, err := c.StreamCmdVelOn(context.Background(), d.Input) // not ctx: its end closes the stream below, cleanly
	if err != nil {
		return res, err
	}
	res.Opened = true
	clk := d.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	t := clk.NewTicker(time.Duration(float64(time.Second) / d.Rate))
	defer t.Stop()
	end := clk.After(d.For)
	var sendErr error
loop:
	for {
		if sendErr = s.Send(d.Twist); sendErr != nil {
			break
		}
		res.Sent++
		select {
		case <-ctx.Done():
			break loop
		case <-end:
			break loop
		case <-t.C():
		}
	}
	if sendErr == nil && !d.Coast {
		if sendErr = s.Send(Twist{}); sendErr == nil {
			res.Stopped = true
		}
	}
	res.Stream, err = s.Close()
	if err != nil {
		return res, err
	}
	return res, sendErr
}
