package simrobot

import (
	"context"
	"fmt"
	"os"

	"github.com/rosorin/rosorin/sim"
)

// Stack is a simulated robot and a `rosorin-base run` on its board and LiDAR.
type Stack struct {
	Sim *sim.Sim
	// Service is the running service; Relaunch replaces it.
	*Service

	o      Options
	ownDir bool
}

// Start starts the sim (cfg; cfg.Dir "" is the service's directory, o.Dir "" a short temporary one that
// Close removes) and `rosorin-base run` on its ptys (o's Device and Lidar are set from the sim), and waits
// until the service is ready (WaitReady). The sim lives until Close, not until ctx: a teardown after ctx
// ended still needs it. On an error everything it started is stopped again.
func Start(ctx context.Context, cfg sim.Config, o Options) (*Stack, error) {
	own := o.Dir == ""
	if own {
		d, err := os.MkdirTemp("", "rsim") // short: unix socket paths are limited to 108 bytes
		if err != nil {
			return nil, err
		}
		o.Dir = d
	}
	cleanup := func() {
		if own {
			os.RemoveAll(o.Dir)
		}
	}
	if cfg.Dir == "" {
		cfg.Dir = o.Dir
	}
	s, err := sim.Start(context.Background(), cfg)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("simulated robot: %w", err)
	}
	o.Device, o.Lidar = s.BoardPath(), s.LidarPath()
	svc, err := StartService(ctx, o)
	if err != nil {
		s.Close()
		cleanup()
		return nil, err
	}
	return &Stack{Sim: s, Service: svc, o: o, ownDir: own}, nil
}

// Relaunch starts a new `rosorin-base run` on the same sim, directory and options, in place of the last one,
// which must have stopped (systemctl start after stop); it does not wait for it to be ready.
func (st *Stack) Relaunch() error {
	svc, err := Launch(st.o)
	if err != nil {
		return err
	}
	if st.Service != nil && st.Client != nil {
		st.Client.CloseIdle()
	}
	st.Service = svc
	return nil
}

// Close stops the service (Stop), then the sim, and removes a directory Start made. It returns the sim's
// close error.
func (st *Stack) Close() error {
	if st.Service != nil {
		st.Service.Stop()
		if st.Client != nil {
			st.Client.CloseIdle()
		}
	}
	err := st.Sim.Close()
	if st.ownDir {
		os.RemoveAll(st.o.Dir)
	}
	return err
}
