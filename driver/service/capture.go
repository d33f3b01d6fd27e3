package service

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// checkCaptureDir makes sure the supervisor and the reader can record into dir before the port is touched:
// a typo in --capture is an error at start, not a recording that never happens.
func checkCaptureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--capture %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".rosorin-capture-check-*")
	if err != nil {
		return fmt.Errorf("--capture %s: cannot write there: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// captureMetadata is the driver configuration every segment records: the parameter files and the
// configuration they gave.
func captureMetadata(cfg config.Config, configs []string) map[string]string {
	md := map[string]string{"config_files": strings.Join(configs, ",")}
	if b, err := json.Marshal(cfg); err == nil {
		md["driver_config"] = string(b)
	}
	return md
}

// captureArgs are the reader child's recording flags (the same DIR, rotation and retention).
func captureArgs(c *segment.SegmentOptions) []string {
	if c == nil {
		return nil
	}
	a := []string{"--capture", c.Dir, "--capture-rotate-size", strconv.FormatInt(c.RotateSize, 10),
		"--capture-rotate-time", c.RotateTime.String()}
	switch {
	case c.KeepFiles > 0:
		a = append(a, "--capture-keep", strconv.Itoa(c.KeepFiles))
	case c.KeepBytes > 0:
		a = append(a, "--capture-keep", strconv.FormatInt(c.KeepBytes, 10)+"B")
	}
	return a
}

// captureStatic are the messages every segment of the board's recording starts with: the sensor mounts on
// /tf_static with the configuration's frame ids, as the ROS 2 node publishes them (docs/ros2.md, "tf").
func captureStatic(cfg config.Config) []segment.StaticMessage {
	return []segment.StaticMessage{{Topic: "/tf_static", Type: (*rosmsg.TFMessage)(nil).ROSType(),
		Msg: func(t time.Time) rosmsg.Message { return cfg.StaticTransforms(t) }}}
}
