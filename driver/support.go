package driver

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/rosorin/rosorin/driver/api"
)

// pubInfo is one velocity command sender (by SO_PEERCRED pid).
type pubInfo struct {
	peer    api.Peer
	oneShot time.Time // last one-shot command (commands over a stream do not count here)
	hasShot bool
	streams int
	last    time.Time // last command of any kind, for the state record
	hasCmd  bool
}

// PublisherWindow: a sender of one-shot commands counts as a publisher this long after its last command.
const PublisherWindow = time.Second

// notePublisher records a command at at (zero: none; oneShot: not over a stream) and a change of open
// streams by dStreams.
func (r *runtime) notePublisher(p api.Peer, at time.Time, oneShot bool, dStreams int) {
	pi := r.pubs[p.PID]
	if pi == nil {
		pi = &pubInfo{peer: p}
		r.pubs[p.PID] = pi
	}
	if !at.IsZero() {
		pi.last, pi.hasCmd = at, true
		if oneShot {
			pi.oneShot, pi.hasShot = at, true
		}
	}
	pi.streams += dStreams
	if pi.streams < 0 {
		pi.streams = 0
	}
}

// publisherCount returns how many publishers there are now (the rule is in driver/api's doc) and forgets
// senders that no longer count. Process liveness is only looked up when there are two or more candidates.
func (r *runtime) publisherCount(now time.Time) int {
	n := 0
	for pid, pi := range r.pubs {
		switch {
		case pi.streams > 0, pi.hasShot && now.Sub(pi.oneShot) <= PublisherWindow:
			n++
		default:
			delete(r.pubs, pid)
		}
	}
	if n < 2 {
		return n
	}
	type key struct {
		kind byte // 's' stream, 'p' running one-shot sender, 'g' parent of exited one-shot senders
		pid  int
	}
	keys := map[key]bool{}
	alive := map[int]bool{}
	exitedParents := map[int]bool{}
	for pid, pi := range r.pubs {
		if pi.streams > 0 {
			keys[key{'s', pid}] = true
		}
		if !pi.hasShot || now.Sub(pi.oneShot) > PublisherWindow {
			continue
		}
		alive[pid] = api.ProcessAlive(pid)
		if !alive[pid] {
			exitedParents[pi.peer.PPID] = true
		}
	}
	for pid, on := range alive {
		pp := r.pubs[pid].peer.PPID
		switch {
		case !on || (pp > 0 && exitedParents[pp]):
			keys[key{'g', pp}] = true
		case r.pubs[pid].streams == 0:
			keys[key{'p', pid}] = true
		}
	}
	return len(keys)
}

func (r *runtime) publisherList(now time.Time) []api.Publisher {
	out := make([]api.Publisher, 0, len(r.pubs))
	for _, pi := range r.pubs {
		p := api.Publisher{PID: pi.peer.PID, Comm: pi.peer.Comm, Streams: pi.streams}
		if pi.hasCmd {
			a := round3(now.Sub(pi.last).Seconds())
			p.LastCmdAgeS = &a
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b api.Publisher) int { return a.PID - b.PID })
	return out
}

// rateMeter measures an event rate: the number of events in the last second (a sliding window over the last
// len(ring) arrival times, enough for the IMU's 110 Hz).
type rateMeter struct {
	ring [256]time.Time
	n    int
}

func (m *rateMeter) add(at time.Time) {
	m.ring[m.n%len(m.ring)] = at
	m.n++
}

// hz returns the events within the second before now.
func (m *rateMeter) hz(now time.Time) float64 {
	c := 0
	for i := range min(m.n, len(m.ring)) {
		at := m.ring[(m.n-1-i)%len(m.ring)]
		if now.Sub(at) > time.Second {
			break
		}
		c++
	}
	return float64(c)
}

// jitterStats keeps the last tick intervals for percentiles, and counts overruns since start.
type jitterStats struct {
	ring     [500]time.Duration // 10 s at 50 Hz
	n        int
	overruns uint64
	cached   api.LoopStats
	cachedAt int
}

func (j *jitterStats) add(dt, tick time.Duration) {
	j.ring[j.n%len(j.ring)] = dt
	j.n++
	if dt > tick*3/2 {
		j.overruns++
	}
}

// Intervals returns a copy of the recorded intervals (oldest first order is not kept).
func (j *jitterStats) intervals() []time.Duration {
	k := min(j.n, len(j.ring))
	return slices.Clone(j.ring[:k])
}

func (j *jitterStats) stats(rate float64) api.LoopStats {
	if j.n == j.cachedAt && j.n > 0 {
		return j.cached
	}
	v := j.intervals()
	s := api.LoopStats{RateHz: rate, Overruns: j.overruns}
	if len(v) > 0 {
		slices.Sort(v)
		ms := func(d time.Duration) float64 { return round3(float64(d) / 1e6) }
		s.TickP50Ms = ms(v[len(v)/2])
		s.TickP99Ms = ms(v[min(len(v)-1, len(v)*99/100)])
		s.TickMaxMs = ms(v[len(v)-1])
	}
	j.cached, j.cachedAt = s, j.n
	return s
}

func round3(v float64) float64 {
	if v < 0 {
		return -round3(-v)
	}
	return float64(int64(v*1000+0.5)) / 1000
}

// diskWriter does the driver's few file writes (plugged.json, battery CSV) off the control loop: a slow SD card
// must not stall a tick. A full queue drops the job and counts it.
type diskWriter struct {
	log     *slog.Logger
	ch      chan diskJob
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	dropped uint64
	failed  uint64
}

type diskJob struct {
	path   string
	data   []byte
	append bool // append a line; else replace the file atomically
}

func newDiskWriter(log *slog.Logger) *diskWriter {
	d := &diskWriter{log: log, ch: make(chan diskJob, 16), done: make(chan struct{})}
	go d.run()
	return d
}

func (d *diskWriter) put(j diskJob) {
	select {
	case d.ch <- j:
	default:
		d.mu.Lock()
		d.dropped++
		d.mu.Unlock()
	}
}

func (d *diskWriter) run() {
	defer close(d.done)
	for j := range d.ch {
		if err := j.write(); err != nil {
			d.mu.Lock()
			d.failed++
			n := d.failed
			d.mu.Unlock()
			if n == 1 || n%100 == 0 {
				d.log.Warn("state file not written", "path", j.path, "err", err, "count", n)
			}
		}
	}
}

// close writes what is queued and waits. Idempotent.
func (d *diskWriter) close() {
	d.once.Do(func() { close(d.ch) })
	<-d.done
}

func (j diskJob) write() error {
	if err := os.MkdirAll(filepath.Dir(j.path), 0o755); err != nil {
		return err
	}
	if j.append {
		f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(j.data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	tmp := j.path + ".tmp"
	if err := os.WriteFile(tmp, j.data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, j.path)
}

func readFileLimit(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s is over %d bytes", path, limit)
	}
	return b, nil
}
