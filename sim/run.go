package sim

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Run is the rosorin-sim process: it starts a sim with cfg, prints its devices to w, runs until ctx is done
// or the process gets SIGINT or SIGTERM, then closes the sim (removing its links and socket) and prints its
// counters.
func Run(ctx context.Context, cfg Config, w io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	world := cfg.World
	if world == "" {
		world = "stand"
	}
	fmt.Fprintf(w, "board:   %s -> %s (%d baud)\n", s.BoardPath(), linkTarget(s.BoardPath()), BoardBaud)
	fmt.Fprintf(w, "lidar:   %s -> %s (%d baud)\n", s.LidarPath(), linkTarget(s.LidarPath()), LidarBaud)
	fmt.Fprintf(w, "control: %s\n", s.ControlPath())
	fmt.Fprintf(w, "world %s, seed %d; Ctrl-C to stop\n", world, cfg.Seed)
	<-ctx.Done()
	err = s.Close()
	st := s.Stats()
	fmt.Fprintf(w, "stopped: IMU frames %d, LiDAR packets %d, board frames received %d (bad checksums %d)\n",
		st.IMUFrames, st.LidarPackets, st.BoardRx.Frames, st.BoardRx.BadChecksum)
	return err
}

func linkTarget(link string) string {
	t, err := os.Readlink(link)
	if err != nil {
		return "?"
	}
	return t
}
