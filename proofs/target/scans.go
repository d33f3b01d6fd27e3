package target

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// ScanSample is one LiDAR scan the driver published, timed on its receipt by the proof's clock (the
// triggers' clock), as the IMU samples are.
type ScanSample struct {
	At   time.Time
	Scan api.Scan
}

// ScanFollower is implemented by targets that stream the driver's LiDAR scans: the floor proof's odometry,
// corridor check and guard need them; the stand proof does not. An optional ability, found by type
// assertion, so that Target stays what every proof needs.
type ScanFollower interface {
	// FollowScans calls fn for every scan until ctx ends, the stream ends (driver gone: it never
	// reconnects, so one call never mixes two drivers' scans) or fn returns an error.
	FollowScans(ctx context.Context, fn func(ScanSample) error) error
}

// FollowScans follows GET /v1/scan?follow=1.
func (l *LiveTarget) FollowScans(ctx context.Context, fn func(ScanSample) error) error {
	return l.c.Follow(ctx, api.TopicScan, func(b []byte) error {
		var s api.Scan
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("decode scan: %w", err)
		}
		return fn(ScanSample{At: l.cfg.Clock.Now(), Scan: s})
	})
}

var (
	_ ScanFollower = (*LiveTarget)(nil)
	_ ScanFollower = (*SimTarget)(nil)
)
