package lidar

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rosorin/rosorin/capture/segment"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/config"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// ProcessConfig is the reader process's command line (`rosorin-base lidar-reader`).
type ProcessConfig struct {
	Device  string   // the LiDAR's serial device
	Socket  string   // the driver's control socket
	Configs []string // parameter files (scan direction, angle offset, ranges, frame, silence)
	// Capture, when set, records every read of the port into DIR/lidar-<UTC time>.mcap segments.
	Capture *segment.SegmentOptions
	Log     *slog.Logger // nil = slog.Default()
}

// RunProcess is the LiDAR reader child of `rosorin-base run`: it names the process api.ReaderComm (half of
// what lets the driver take its scans; the other half is its parent, the supervisor: driver/scanauth.go),
// reads the LiDAR and forwards the scans to the driver until SIGINT, SIGTERM, SIGHUP or ctx ends (then it
// returns nil), or the reader fails (its error: the process exits non-zero and the supervisor respawns it, for
// a live process with a dead read loop would publish nothing, forever). The reader never moves a wheel: while it
// is down the driver's scan gate holds software commands.
func RunProcess(ctx context.Context, pc ProcessConfig) error {
	childproc.SetProcName(api.ReaderComm)
	log := pc.Log
	if log == nil {
		log = slog.Default()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	cfg, _, err := config.Load(pc.Configs...)
	if err != nil {
		return err
	}
	scfg := coind6.ScanConfig{Bins: coind6.DefaultBins, Clockwise: cfg.Clockwise, OffsetDeg: cfg.AngleOffsetDeg,
		RangeMin: cfg.RangeMin, RangeMax: cfg.RangeMax}
	cl := api.NewClient(pc.Socket)
	fw := NewForwarder(func(ctx context.Context) (ScanStream, error) {
		return cl.StreamScans(ctx)
	}, cfg.LidarFrameID, log)
	capq, record := startCapture(pc.Capture, pc.Device, log)
	defer func() {
		if err := capq.Close(); err != nil {
			log.Error("capture: recording ended with an error", "err", err)
		}
	}()
	r := New(Config{Device: pc.Device, Scan: scfg, Silence: cfg.ReopenAfterSilence(), Log: log, Record: record})
	fwDone := make(chan struct{})
	fctx, fcancel := context.WithCancel(context.Background())
	go func() { defer close(fwDone); _ = fw.Run(fctx) }()
	err = r.Run(ctx, fw.Offer)
	fcancel()
	<-fwDone
	st := r.Stats()
	sent, dropped, _ := fw.Counts()
	log.Info("LiDAR reader stopped", "scans", st.Scans, "sent", sent, "dropped", dropped, "reopens", st.Reopens,
		"bad_checksum", st.Parser.BadChecksum)
	if err != nil {
		// The supervisor respawns us in about 2 s; meanwhile the driver's scan gate holds the wheels.
		return fmt.Errorf("%w; exiting for a respawn", err)
	}
	return nil
}
