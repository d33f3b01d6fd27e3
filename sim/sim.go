package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// Config configures a simulated robot.
type Config struct {
	Dir       string   // where the device links and the control socket are created (made if missing)
	World     string   // "stand" (default) or "floor"
	Room      *Room    // nil = DefaultRoom(); the stand sits in it too, which is what its LiDAR sees
	Seed      int64    // seeds every noise generator
	TruthPath string   // optional JSON-lines ground truth file
	Faults    []string // applied at start, same syntax as the CLI --fault (see FaultHelp)
	// Clock runs the physics and report streams and stamps the frames the board reads; clock.Real{} when
	// nil (virtual inside a testing/synctest bubble).
	Clock clock.Timers
}

// Names inside Config.Dir and device rates (the protocols' own).
const (
	BoardLinkName = "ttyACM0"
	LidarLinkName = "lidar"
	ControlName   = "sim.sock"
	BoardBaud     = board.Baud
	LidarBaud     = coind6.Baud
	// IMURateHz: the board streams IMU frames unasked at about 110 Hz. The physics ticks at the same rate:
	// one clock, one owner, about 1 % of a core.
	IMURateHz     = 110
	BatteryPeriod = time.Second
	GamepadPeriod = 50 * time.Millisecond // 20 Hz while a pad is connected
	truthPeriod   = 20 * time.Millisecond
	// MaxWheelRPS is where the simulated motors saturate; the firmware itself does not range-check.
	MaxWheelRPS = 6.0
	// rxKeep bounds the received-frame log (oldest half dropped when full; sequence numbers stay absolute).
	rxKeep = 1 << 17
)

// ErrClosed is returned by fault methods after Close.
var ErrClosed = errors.New("sim: closed")

// Stats counts what the sim did; a snapshot is returned by Sim.Stats.
type Stats struct {
	IMUFrames, BatteryFrames, GamepadFrames, KeyFrames uint64 // board frames sent to a client
	IMUSkipped                                         uint64 // samples never made: the sim was stalled > 250 ms
	BoardTxNoClient, BoardTxFull                       uint64 // board frames dropped (nobody listening / pty full)
	BoardTxSkipped                                     uint64 // frames not sent: device gone or firmware hung
	BoardRx                                            board.Stats
	BoardRxHungBytes                                   uint64 // bytes read just as the firmware hung, held until it resumed
	MotorApplied, MotorIgnored, MotorBad               uint64 // motor frames obeyed / ignored (fault) / undecodable or odd
	FlakyStops                                         uint64 // stops the flaky-stop fault ignored
	LidarPackets                                       uint64 // packets written to a client
	LidarBytes                                         uint64
	LidarNoClient, LidarFull, LidarSkipped             uint64 // packets dropped: nobody listening / pty full / silent or unplugged
	BoardReconnects, LidarReconnects                   int
	CorruptedBytes                                     uint64 // bytes corrupted on purpose, both directions
	CorruptedToBoard                                   uint64 // of those, bytes the board received corrupted
	TruthDropped                                       uint64
}

// Sim is a running simulated robot. All methods are safe for concurrent use.
type Sim struct {
	cfg                            Config
	clk                            clock.Timers // cfg.Clock or the real one
	kind                           WorldKind
	room                           *Room
	boardLink, lidarLink, sockPath string

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	cmds  chan func(*core)
	motor chan motorCmd
	hang  gate

	toBoardRate atomic.Uint64 // float64 bits

	mu         sync.Mutex
	truth      Truth
	stats      Stats       // core's part, published every tick
	rxStats    board.Stats // parser counts of finished board devices
	rxCur      board.Stats // the current device's parser
	rxHung     uint64
	rxCorrupt  uint64
	rx         []Received
	rxBase     int           // sequence number of rx[0]
	rxWake     chan struct{} // closed and replaced on every new frame
	truthOut   chan []byte
	truthDrops atomic.Uint64

	ln        net.Listener
	closeOnce sync.Once
	closeErr  error
}

// Start creates the devices, the control socket and the goroutines. The sim runs until ctx is done or
// Close is called; Close must be called in any case to wait for the goroutines.
func Start(ctx context.Context, cfg Config) (*Sim, error) {
	if cfg.Dir == "" {
		return nil, errors.New("sim: Config.Dir is empty; give a directory for the device links")
	}
	s := &Sim{cfg: cfg, clk: cfg.Clock, room: cfg.Room, rxWake: make(chan struct{})}
	if s.clk == nil {
		s.clk = clock.Real{}
	}
	switch cfg.World {
	case "", "stand":
		s.kind = Stand
	case "floor":
		s.kind = Floor
	default:
		return nil, fmt.Errorf("sim: world %q unknown; use stand or floor", cfg.World)
	}
	if s.room == nil {
		s.room = DefaultRoom()
	} else {
		r := *s.room // a Room built in code may leave the radius at zero
		if r.RobotRadius == 0 {
			r.RobotRadius = DefaultRobotRadius
		}
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("sim: room: %w", err)
		}
		s.room = &r
	}
	faults := make([]Fault, 0, len(cfg.Faults))
	for _, f := range cfg.Faults {
		pf, err := ParseFault(f)
		if err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		faults = append(faults, pf)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("sim: create %s: %w", cfg.Dir, err)
	}
	s.boardLink = filepath.Join(cfg.Dir, BoardLinkName)
	s.lidarLink = filepath.Join(cfg.Dir, LidarLinkName)
	s.sockPath = filepath.Join(cfg.Dir, ControlName)
	s.cmds = make(chan func(*core))
	s.motor = make(chan motorCmd, 256)
	s.hang.init()
	s.ctx, s.cancel = context.WithCancel(ctx)

	ln, err := listenControl(s.sockPath)
	if err != nil {
		s.cancel()
		return nil, err
	}
	s.ln = ln

	var tf *os.File
	if cfg.TruthPath != "" {
		tf, err = os.Create(cfg.TruthPath)
		if err != nil {
			ln.Close()
			s.cancel()
			return nil, fmt.Errorf("sim: truth file: %w", err)
		}
		s.truthOut = make(chan []byte, 4096)
	}

	now := s.clk.Now()
	c := newCore(s, now)
	if c.board, err = openPort(s.boardLink, BoardBaud); err == nil {
		c.lidar, err = openPort(s.lidarLink, LidarBaud)
	}
	if err != nil {
		if c.board != nil {
			c.board.Close()
		}
		ln.Close()
		if tf != nil {
			tf.Close()
		}
		s.cancel()
		return nil, fmt.Errorf("sim: %w", err)
	}
	if tf != nil {
		s.wg.Add(1)
		go s.writeTruth(tf)
	}
	s.startBoardReader(c.board, c.boardGen)
	for _, f := range faults {
		c.applyFault(f, now)
	}
	c.publish(now)
	s.wg.Add(2)
	go c.run()
	go s.serveControl()
	return s, nil
}

// BoardPath is the board's device link (DIR/ttyACM0).
func (s *Sim) BoardPath() string { return s.boardLink }

// LidarPath is the LiDAR's device link (DIR/lidar).
func (s *Sim) LidarPath() string { return s.lidarLink }

// ControlPath is the control socket (DIR/sim.sock).
func (s *Sim) ControlPath() string { return s.sockPath }

// Close stops the sim, removes its links and socket and waits for every goroutine. Idempotent.
func (s *Sim) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.ln.Close()
		s.wg.Wait()
		_ = os.Remove(s.sockPath)
	})
	return s.closeErr
}

// Truth returns the current ground truth (tests only).
func (s *Sim) Truth() Truth {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.truth
	t.Faults = append([]string(nil), t.Faults...)
	return t
}

// Stats returns the counters so far.
func (s *Sim) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.BoardRx = addStats(s.rxStats, s.rxCur)
	st.BoardRxHungBytes = s.rxHung
	st.CorruptedBytes += s.rxCorrupt
	st.CorruptedToBoard = s.rxCorrupt
	st.TruthDropped = s.truthDrops.Load()
	return st
}

func addStats(a, b board.Stats) board.Stats {
	return board.Stats{Frames: a.Frames + b.Frames, BadChecksum: a.BadChecksum + b.BadChecksum,
		UnknownFunc: a.UnknownFunc + b.UnknownFunc, SkippedBytes: a.SkippedBytes + b.SkippedBytes}
}

// RxSeq returns the sequence number the next received frame will get.
func (s *Sim) RxSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rxBase + len(s.rx)
}

// Received returns every valid frame the board received (as far as the bounded log reaches).
func (s *Sim) Received() []Received {
	r, _ := s.ReceivedSince(0)
	return r
}

// ReceivedSince returns the frames with sequence numbers >= seq and the next sequence number.
func (s *Sim) ReceivedSince(seq int) ([]Received, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := max(seq-s.rxBase, 0)
	if i > len(s.rx) {
		i = len(s.rx)
	}
	return append([]Received(nil), s.rx[i:]...), s.rxBase + len(s.rx)
}

// WaitFrame waits for the first frame received after the call for which pred is true (nil = any).
func (s *Sim) WaitFrame(ctx context.Context, pred func(Received) bool) (Received, error) {
	r, _, err := s.WaitFrameSince(ctx, s.RxSeq(), pred)
	return r, err
}

// WaitFrameSince waits for the first frame with sequence >= seq for which pred is true; it also returns
// the sequence number to continue from.
func (s *Sim) WaitFrameSince(ctx context.Context, seq int, pred func(Received) bool) (Received, int, error) {
	for {
		s.mu.Lock()
		i := max(seq-s.rxBase, 0)
		for ; i < len(s.rx); i++ {
			if pred == nil || pred(s.rx[i]) {
				r := s.rx[i]
				s.mu.Unlock()
				return r, r.Seq + 1, nil
			}
		}
		seq = s.rxBase + len(s.rx)
		wake := s.rxWake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return Received{}, seq, ctx.Err()
		case <-s.ctx.Done():
			return Received{}, seq, ErrClosed
		}
	}
}

func (s *Sim) record(t time.Time, f board.Frame) Received {
	s.mu.Lock()
	r := Received{Seq: s.rxBase + len(s.rx), T: t, Func: f.Func, Payload: append([]byte(nil), f.Payload...)}
	if len(s.rx) >= rxKeep {
		n := copy(s.rx, s.rx[rxKeep/2:])
		clear(s.rx[n:])
		s.rx = s.rx[:n]
		s.rxBase += rxKeep / 2
	}
	s.rx = append(s.rx, r)
	close(s.rxWake)
	s.rxWake = make(chan struct{})
	s.mu.Unlock()
	s.emitTruth(marshalRx(r))
	return r
}

// emitTruth queues a truth-file line; a full queue drops it (counted) rather than stall the sim.
func (s *Sim) emitTruth(b []byte) {
	if s.truthOut == nil {
		return
	}
	select {
	case s.truthOut <- b:
	default:
		s.truthDrops.Add(1)
	}
}

func (s *Sim) writeTruth(f *os.File) {
	defer s.wg.Done()
	w := bufio.NewWriterSize(f, 64<<10)
	flush := s.clk.NewTicker(500 * time.Millisecond)
	defer flush.Stop()
	for {
		select {
		case b := <-s.truthOut:
			w.Write(b)
		case <-flush.C():
			w.Flush()
		case <-s.ctx.Done():
			// The producers have stopped or will drop: drain what is queued and finish the file.
			for {
				select {
				case b := <-s.truthOut:
					w.Write(b)
					continue
				default:
				}
				break
			}
			if err := w.Flush(); err != nil {
				s.closeErr = fmt.Errorf("sim: truth file: %w", err)
			}
			f.Close()
			return
		}
	}
}

// do runs f on the core goroutine (the owner of the physics and the devices) and waits for it.
func (s *Sim) do(f func(c *core)) error {
	done := make(chan struct{})
	select {
	case s.cmds <- func(c *core) { f(c); close(done) }:
	case <-s.ctx.Done():
		return ErrClosed
	}
	<-done
	return nil
}

// startBoardReader reads one board device instance until it is closed. It owns that instance's parser.
func (s *Sim) startBoardReader(p *port, gen uint64) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var parser board.Parser
		rng := rand.New(rand.NewPCG(uint64(s.cfg.Seed), 0x70b0a4d0+gen))
		buf := make([]byte, 4096)
		defer func() {
			s.mu.Lock()
			s.rxStats = addStats(s.rxStats, parser.Stats())
			s.rxCur = board.Stats{}
			s.mu.Unlock()
		}()
		for {
			// A hung firmware stops reading: the host's bytes wait in the pty until it resumes.
			if !s.hang.waitOff(s.ctx) {
				return
			}
			n, err := p.Master.Read(buf)
			if err != nil {
				return // closed: USB drop or Close
			}
			now := s.clk.Now()
			if s.hang.isOn() {
				// Read just as the firmware hung: the bytes sit in its USB buffer until it resumes.
				s.mu.Lock()
				s.rxHung += uint64(n)
				s.mu.Unlock()
				if !s.hang.waitOff(s.ctx) {
					return
				}
				now = s.clk.Now()
			}
			chunk := buf[:n]
			if r := math.Float64frombits(s.toBoardRate.Load()); r > 0 {
				k := corrupt(rng, chunk, r)
				s.mu.Lock()
				s.rxCorrupt += uint64(k)
				s.mu.Unlock()
			}
			parser.Feed(chunk, func(f board.Frame) {
				s.record(now, f)
				if f.Func != board.FuncMotor {
					return
				}
				mc, err := board.DecodeMotor(f.Payload)
				if err != nil {
					mc = board.MotorCommand{Kind: 0xff}
				}
				select {
				case s.motor <- motorCmd{now, mc}:
				case <-s.ctx.Done():
				}
			})
			st := parser.Stats()
			s.mu.Lock()
			s.rxCur = st
			s.mu.Unlock()
		}
	}()
}

// motorCmd is a decoded motor frame with the time the firmware read it.
type motorCmd struct {
	t   time.Time
	cmd board.MotorCommand
}

// corrupt flips one random bit in each byte with probability rate; returns how many bytes it changed.
func corrupt(rng *rand.Rand, b []byte, rate float64) int {
	n := 0
	for i := range b {
		if rng.Float64() < rate {
			b[i] ^= 1 << rng.IntN(8)
			n++
		}
	}
	return n
}

// gate is an on/off switch others can wait on (the firmware hang).
type gate struct {
	mu  sync.Mutex
	on  bool
	off chan struct{} // closed while off
}

func (g *gate) init() {
	g.off = make(chan struct{})
	close(g.off)
}

func (g *gate) set(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if on == g.on {
		return
	}
	g.on = on
	if on {
		g.off = make(chan struct{})
	} else {
		close(g.off)
	}
}

func (g *gate) isOn() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.on
}

// waitOff returns true once the gate is off, false if ctx ends first.
func (g *gate) waitOff(ctx context.Context) bool {
	g.mu.Lock()
	ch := g.off
	g.mu.Unlock()
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}
