//go:build !linux

package driver

import "time"

// threadCPU is not measured off Linux: the state record's match_cpu_ms stays 0.
func threadCPU() time.Duration { return 0 }
