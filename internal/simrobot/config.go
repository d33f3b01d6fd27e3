package simrobot

import (
	"fmt"
	"os"
	"path/filepath"
)

// DefaultConfig is the parameter file of a driver with chapter 11's defaults (max_linear 0.2, rule 5's).
const DefaultConfig = "rosorin_board_driver:\n  ros__parameters: {}\n"

// RobotConfig is the driver configuration of the simulated robot, for the tests and stopproof --sim alike,
// in the ROS parameter-file shape the driver reads: chapter 11's defaults with the robot's speed limit,
// written out so that a run depends neither on this host's files nor on a change of the code's defaults.
const RobotConfig = `# the simulated robot's running limits, written so the run does not depend on this host's files.
# max_linear 0.35: config/arm_limits.yaml since 2026-10-01 (the code default is still rule 5's 0.2).
rosorin_board_driver:
  ros__parameters:
    max_linear: 0.35
    max_angular: 1.0
    cmd_timeout: 0.3
    scan_timeout: 0.5
`

// ConfigFile is the driver's parameter file in the service's directory; OverridesFile the second one, read
// after it (stopproof's --sim-param, a negative control's changed parameters).
const (
	ConfigFile    = "base.yaml"
	OverridesFile = "sim-params.yaml"
)

// WriteConfig writes the driver's parameter files into dir and returns their paths in the order
// `rosorin-base run --config` takes them (a later file wins key by key): ConfigFile with config ("" is
// DefaultConfig) unless that file exists already (a test that wrote its own), then OverridesFile with
// overrides when there are any.
func WriteConfig(dir, config string, overrides []byte) ([]string, error) {
	path := filepath.Join(dir, ConfigFile)
	if _, err := os.Stat(path); err != nil {
		if config == "" {
			config = DefaultConfig
		}
		if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
			return nil, fmt.Errorf("driver configuration: %w", err)
		}
	}
	paths := []string{path}
	if len(overrides) > 0 {
		over := filepath.Join(dir, OverridesFile)
		if err := os.WriteFile(over, overrides, 0o644); err != nil {
			return nil, fmt.Errorf("driver parameter overrides: %w", err)
		}
		paths = append(paths, over)
	}
	return paths, nil
}
