//go:build !linux

package cputime

import "time"

// Thread is not measured off Linux: it is 0.
func Thread() time.Duration { return 0 }
