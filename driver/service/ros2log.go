package service

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"sync/atomic"

	"github.com/rosorin/rosorin/driver/api"
)

// SupervisorLogEnv names the bridge child's descriptor that carries the supervisor's log records (JSON lines
// of api.LogRecord): the supervisor's lines reach /rosout through it (docs/ros2.md, "/rosout").
const SupervisorLogEnv = "ROSORIN_SUPERVISOR_LOG_FD"

// bridgeLog hands the supervisor's records at INFO and above to the bridge child through a pipe, one per
// bridge start. The supervisor never waits for it: records go into a bounded queue (full: dropped and
// counted), and one goroutine writes them; a bridge that does not read blocks that goroutine only. Records
// made while no bridge runs wait for the next one (the last bridgeLogPending of them).
type bridgeLog struct {
	ch      chan api.LogRecord
	pipes   chan *os.File
	dropped atomic.Uint64
}

const (
	bridgeLogQueue   = 256
	bridgeLogPending = 64
)

// teeToBridge returns log with the supervisor's records also going to the bridge, and the feed that
// startBridge connects to each bridge child. It writes until ctx ends.
func teeToBridge(ctx context.Context, log *slog.Logger) (*slog.Logger, *bridgeLog) {
	b := &bridgeLog{ch: make(chan api.LogRecord, bridgeLogQueue), pipes: make(chan *os.File, 1)}
	log, tee := api.TeeLog(log, "supervisor")
	tee.SetSink(b.put)
	go b.run(ctx)
	return log, b
}

func (b *bridgeLog) put(r api.LogRecord) {
	select {
	case b.ch <- r:
	default:
		b.dropped.Add(1)
	}
}

// prepare gives cmd the read end of a new pipe as its fd 3 and SupervisorLogEnv; call the returned
// function after cmd.Start (started: whether it did) to close the read end here and hand over the write end.
func (b *bridgeLog) prepare(cmd *exec.Cmd) func(started bool) {
	if b == nil { // no feed: the bridge reads no supervisor lines
		return func(bool) {}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return func(bool) {}
	}
	cmd.ExtraFiles = []*os.File{r}
	cmd.Env = append(os.Environ(), SupervisorLogEnv+"=3")
	return func(started bool) {
		r.Close()
		if !started {
			w.Close()
			return
		}
		select {
		case old := <-b.pipes: // a pipe the writer has not taken yet: its bridge is gone
			old.Close()
		default:
		}
		b.pipes <- w
	}
}

func (b *bridgeLog) run(ctx context.Context) {
	var w *os.File
	var enc *json.Encoder
	var pending []api.LogRecord
	write := func(r api.LogRecord) {
		if w == nil {
			if len(pending) == bridgeLogPending {
				pending = pending[1:]
				b.dropped.Add(1)
			}
			pending = append(pending, r)
			return
		}
		if err := enc.Encode(r); err != nil { // the bridge is gone
			w.Close()
			w, enc = nil, nil
		}
	}
	for {
		select {
		case <-ctx.Done():
			if w != nil {
				w.Close()
			}
			return
		case f := <-b.pipes:
			if w != nil {
				w.Close()
			}
			w, enc = f, json.NewEncoder(f)
			p := pending
			pending = nil
			for _, r := range p {
				write(r)
			}
		case r := <-b.ch:
			write(r)
		}
	}
}
