//go:build !linux

package scanmatch

import "time"

func threadCPU() time.Duration { return 0 }
