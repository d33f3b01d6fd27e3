package driver

import (
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// persister keeps the driver's durable state, the e-stop latch (latchfile.go) and the runtime parameter
// overrides (runparams.go), from its own goroutine: an fsync can take hundreds of milliseconds on an SD card,
// and the 50 Hz control loop must never wait for one. The loop hands it the newest desired state of each
// (one slot each, the newest wins, never blocks, never drops the newest); the persister writes it.
//
// The order that matters: a latch is written only after the stop frame queued for it (or any later frame) was
// written to the port by the board writer, so the disk can never delay or come before the stop. At shutdown
// the final stop frames are written by Run itself; close then lets a latch still waiting be written after them.
type persister struct {
	log       *slog.Logger
	bw        *boardWriter
	latchPath string
	// writeFile replaces a file durably (writeFileDurable); tests make it slow.
	writeFile func(path string, data []byte, perm os.FileMode) error

	latch  chan latchJob
	params chan paramsJob
	final  chan struct{} // closed once the shutdown's final stop frames were written
	quit   chan struct{}
	done   chan struct{}
	once   sync.Once

	// For tests and the log: the sequence number a latch waits for (0: not waiting) and what was done.
	waitingFor   atomic.Uint64
	latchWrites  atomic.Uint64
	latchRemoves atomic.Uint64
	paramWrites  atomic.Uint64
	failures     atomic.Uint64
	// lastLatency is the time from the stop frame's write to the latch file's durable rename, in nanoseconds.
	lastLatency atomic.Int64
}

// latchJob is the latch the file must show: latched with rec once frame seq (0: none needed, the start's
// synchronous stop frame came first) was written, or not latched.
type latchJob struct {
	latched bool
	rec     latchRecord
	seq     uint64
}

// paramsJob writes data to path durably, or removes path (data nil).
type paramsJob struct {
	path string
	data []byte
}

func newPersister(log *slog.Logger, bw *boardWriter, latchPath string) *persister {
	p := &persister{log: log, bw: bw, latchPath: latchPath, writeFile: writeFileDurable,
		latch: make(chan latchJob, 1), params: make(chan paramsJob, 1),
		final: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

// putLatch hands the persister the latch state; a pending older one is replaced. Only the control loop calls
// it (single producer), so the second send never blocks.
func (p *persister) putLatch(j latchJob) {
	select {
	case p.latch <- j:
		return
	default:
	}
	select {
	case <-p.latch:
	default:
	}
	p.latch <- j
}

// putParams is putLatch for the runtime parameters.
func (p *persister) putParams(j paramsJob) {
	select {
	case p.params <- j:
		return
	default:
	}
	select {
	case <-p.params:
	default:
	}
	p.params <- j
}

func (p *persister) run() {
	defer close(p.done)
	for {
		select {
		case j := <-p.latch:
			p.doLatch(j)
		case j := <-p.params:
			p.doParams(j)
		case <-p.quit:
			// Whatever is still pending: the final stop frames are out (close).
			for {
				select {
				case j := <-p.latch:
					p.doLatch(j)
					continue
				case j := <-p.params:
					p.doParams(j)
					continue
				default:
				}
				return
			}
		}
	}
}

// doLatch writes or removes the latch file; a latch first waits for its stop frame. A newer state handed over
// while it waits replaces it.
func (p *persister) doLatch(j latchJob) {
	if p.latchPath == "" {
		return
	}
	if !j.latched {
		if err := removeFileDurable(p.latchPath); err != nil {
			p.fail("e-stop latch file NOT removed: the next start will be latched although it was reset", err)
			return
		}
		p.latchRemoves.Add(1)
		return
	}
	var writtenAt time.Time
	writerDone := p.bw.done
	for {
		seq, next := p.bw.wrote()
		if seq >= j.seq {
			writtenAt = p.bw.clk.Now()
			break
		}
		p.waitingFor.Store(j.seq)
		select {
		case <-next:
			continue
		case <-writerDone:
			writerDone = nil // the writer ended (port gone, or shutdown): only the final stop frames remain
			continue
		case <-p.final:
		case nj := <-p.latch:
			p.waitingFor.Store(0)
			p.doLatch(nj)
			return
		case pj := <-p.params:
			p.doParams(pj)
			continue
		}
		writtenAt = p.bw.clk.Now()
		break
	}
	p.waitingFor.Store(0)
	if err := p.writeFile(p.latchPath, marshalLatch(j.rec), 0o644); err != nil {
		p.fail("e-stop latch NOT kept on disk: a restart of the service would clear it; reset and latch again, or keep the service running", err)
		return
	}
	lat := p.bw.clk.Now().Sub(writtenAt)
	p.lastLatency.Store(int64(lat))
	p.latchWrites.Add(1)
	p.log.Info("e-stop latch kept on disk: a restart stays latched until reset", "file", p.latchPath,
		"after_stop_frame_ms", round3(float64(lat)/1e6))
}

func (p *persister) doParams(j paramsJob) {
	var err error
	if j.data == nil {
		err = removeFileDurable(j.path)
	} else {
		err = p.writeFile(j.path, j.data, 0o644)
	}
	if err != nil {
		p.fail("runtime parameters NOT kept on disk: a driver restart returns to the parameter file's values", err)
		return
	}
	p.paramWrites.Add(1)
}

func (p *persister) fail(what string, err error) {
	n := p.failures.Add(1)
	if n == 1 || n%100 == 0 {
		p.log.Error(what, "err", err, "count", n)
	}
}

// close is called once the final stop frames were written (or attempted): a latch still waiting is written
// now, everything pending is written, and close waits up to wait for it. It reports whether the persister
// ended in time (false: a write is stuck in the kernel). Idempotent.
func (p *persister) close(wait time.Duration) bool {
	p.once.Do(func() { close(p.final); close(p.quit) })
	select {
	case <-p.done:
		return true
	case <-p.bw.clk.After(wait):
		return false
	}
}

// latchJobFor is the job for the gate's latch e ("" not latched) with the stop frame seq, stamped at.
func latchJobFor(e string, seq uint64, at time.Time) latchJob {
	if e == "" {
		return latchJob{}
	}
	return latchJob{latched: true, seq: seq,
		rec: latchRecord{Latched: true, Reason: e, Source: latchSource(e), Time: at.UTC(), PID: os.Getpid()}}
}
