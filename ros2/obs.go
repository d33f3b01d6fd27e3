package ros2

import (
	"context"
	"sync"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/ros2/dds"
)

// newObs creates the observability endpoints (/rosout, /diagnostics, /tf_static; /tf is one of the outputs)
// and points the bridge's own log tee at /rosout.
func (b *Bridge) newObs(tee *api.LogTee) error {
	var err error
	b.rosout = &rosout{name: LoggerName(b.node.Namespace, b.node.Name), ch: make(chan api.LogRecord, rosoutQueue), clk: b.cfg.Clock}
	if b.rosout.pub, err = b.node.Publisher("/rosout", typeLog, rosoutQoS); err != nil {
		return err
	}
	if b.diagPub, err = b.node.Publisher("diagnostics", typeDiagnostics, dds.Default); err != nil {
		return err
	}
	if b.tfStatic, err = b.node.Publisher("/tf_static", typeTF, tfStaticQoS); err != nil {
		return err
	}
	tee.SetSink(b.rosout.put)
	return nil
}

// runObs starts the observability goroutines (in wg) until ctx ends.
func (b *Bridge) runObs(ctx context.Context, wg *sync.WaitGroup) {
	for _, fn := range []func(context.Context){b.diagnostics, b.transforms, b.followDriverLog,
		func(ctx context.Context) { b.rosout.run(ctx, &b.Stats) }} {
		wg.Add(1)
		go func() { defer wg.Done(); fn(ctx) }()
	}
	if f := b.cfg.SupervisorLog; f != nil {
		go b.readSupervisorLog(f)
		go func() { <-ctx.Done(); f.Close() }()
	}
}
