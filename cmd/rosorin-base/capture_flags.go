package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// captureFlags are run's (and the reader child's) recording flags.
func captureFlags(hidden bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "capture", Hidden: hidden, Usage: "record every board byte both ways (supervisor) and every LiDAR byte (reader) into crash-safe MCAP segments in `DIR` " +
			"(board-<UTC time>.mcap, lidar-<UTC time>.mcap; leftovers of a killed run are recovered at start)"},
		&cli.StringFlag{Name: "capture-rotate-size", Hidden: hidden, Value: "64MiB", Usage: "start a new segment at this size (0 = never by size)"},
		&cli.DurationFlag{Name: "capture-rotate-time", Hidden: hidden, Value: 10 * time.Minute, Usage: "start a new segment at this age (0 = never by age)"},
		&cli.StringFlag{Name: "capture-keep", Hidden: hidden, Value: "2GiB", Usage: "retention per process: a count of finished segments (20) or their total size (2GiB); the oldest are deleted (0 = keep all)"},
	}
}

// captureOptions reads the recording flags; nil without --capture.
func captureOptions(c *cli.Context) (*segment.SegmentOptions, error) {
	if c.String("capture") == "" {
		return nil, nil
	}
	size, err := segment.ParseSize(c.String("capture-rotate-size"))
	if err != nil {
		return nil, fmt.Errorf("--capture-rotate-size: %w", err)
	}
	if c.Duration("capture-rotate-time") < 0 {
		return nil, fmt.Errorf("--capture-rotate-time must not be negative")
	}
	files, bytes, err := segment.ParseKeep(c.String("capture-keep"))
	if err != nil {
		return nil, err
	}
	return &segment.SegmentOptions{Dir: c.String("capture"), RotateSize: size, RotateTime: c.Duration("capture-rotate-time"),
		KeepFiles: files, KeepBytes: bytes}, nil
}

// printCaptureStatus is supervisor-status's line about the recording (nothing without --capture).
func printCaptureStatus(c *supervisor.CaptureStatus) {
	switch {
	case c == nil:
	case !c.Recording:
		fmt.Printf("CAPTURE STOPPED (%s): %s; the driver runs on without it\n", c.Dir, orNone(c.Error))
	default:
		fmt.Printf("capture: recording into %s (%d segments, %d messages, %d bytes; %d dropped, %d tx tap copies lost)\n",
			c.File, c.Segments, c.Messages, c.Bytes, c.Dropped, c.TxTapLost)
	}
}
