package live

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/serialport"
)

// orReal is c, or the real clock when c is nil.
func orReal(c clock.Clock) clock.Clock {
	if c == nil {
		return clock.Real{}
	}
	return c
}

// port is what capture record and capture tap share before they read: the options checked and completed, the
// device opened, the recording started with the device's metadata.
type port struct {
	Device string
	Baud   int
	Kind   capture.Kind
	Out    string
	Log    io.Writer
}

// check completes p (the kind's own baud rate, a discarding log) and refuses a bad kind or an existing file.
func (p *port) check() error {
	if p.Log == nil {
		p.Log = io.Discard
	}
	if _, err := capture.ParseKind(string(p.Kind)); err != nil {
		return err
	}
	if p.Baud == 0 {
		p.Baud = capture.DefaultBaud(p.Kind)
	}
	if _, err := os.Stat(p.Out); err == nil {
		return fmt.Errorf("%s exists; pick a new --out file", p.Out)
	}
	return nil
}

// open opens the device with o (its Baud set from p); busy says what to do when another program holds it.
func (p *port) open(o serialport.Options, busy func(error) error) (*os.File, error) {
	o.Baud = p.Baud
	f, err := serialport.Open(p.Device, o)
	switch {
	case err == nil:
		return f, nil
	case serialport.IsBusy(err):
		return nil, busy(err)
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("device %s does not exist; check the path (ls -l /dev/ttyACM* /dev/lidar)", p.Device)
	}
	return nil, err
}

// record starts the recording queue of n reads into p.Out with the device's metadata plus meta, on chans.
func (p *port) record(n int, meta map[string]string, chans []segment.ChannelSpec, onStop func(error)) (*segment.Queue, error) {
	md := map[string]string{"device": p.Device, "baud": strconv.Itoa(p.Baud), "kind": string(p.Kind)}
	for k, v := range meta {
		md[k] = v
	}
	return segment.StartFileQueue(p.Out, segment.QueueOptions{Len: n,
		Segments: segment.SegmentOptions{Metadata: segment.Metadata(md)}, Channels: chans, OnStop: onStop})
}
