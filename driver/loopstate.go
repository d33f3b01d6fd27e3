package driver

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/charger"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/internal/breakrule"
	"github.com/rosorin/rosorin/protocol/board"
)

// loopState is the driver's state. Every field below "owned by the loop" is touched only by the control loop
// goroutine; other goroutines talk to it over reqs and batches.
type loopState struct {
	o   Options
	p   params
	log *slog.Logger
	clk clock.Timers
	tr  api.Transport

	cfgView atomic.Pointer[any] // GET /v1/config: the configuration in force (written by the loop on a runtime set)
	rp      runParams           // runtime parameters (runparams.go), owned by the loop
	// supStart is the supervisor's start time (/proc/PID/stat), read once: it tags the kept runtime parameters.
	// dropRunParams: the kept ones found at start are not this supervisor's; the persister removes them.
	supStart      uint64
	dropRunParams bool

	reqs      chan request
	batches   chan boardBatch
	readerErr chan error
	done      chan struct{} // closed when the loop has ended: pending callers give up

	out     *boardWriter
	disk    *diskWriter
	persist *persister     // the durable latch and runtime parameters (persist.go)
	cr      *contactReflex // the contact reflex (contact.go); its monitor is the loop's
	stops   *stopsState    // the stop monitor (stops.go): watch, monitor and log, the loop's

	tick        time.Duration
	refresh     time.Duration
	statePeriod time.Duration

	// owned by the loop
	gate    *motion.Gate
	odom    *motion.Odometry
	calib   *motion.GyroCalibrator
	bias    *motion.GyroBias
	charger *charger.Detector
	pad     *motion.Pad

	start     time.Time
	startWall time.Time
	lastTick  time.Time
	lastStep  time.Time // the gate's last Step (ticks and deadlines)
	lastState time.Time

	// deadline fires at the gate's next time-driven change (motion.Gate.NextDeadline): the deadman and the
	// hand-overs act at their instant, not at the next tick. armedFor is the instant it is armed for (zero: not
	// armed); source is the input that drove at the last check (motion.Gate.Driving).
	deadline  clock.Timer
	armedFor  time.Time
	source    string
	lastRPS   [4]float64
	lastWrite time.Time
	haveWrite bool

	// The durable latch (latchfile.go): what the state directory said at start, the latch last handed to the
	// persister ("" none) and the sequence number of the last stop frame queued (checkLatch).
	latchLoad   latchLoad
	persisted   string
	lastStopSeq uint64

	scanBlocked  bool
	silentLogged bool
	// silentTripped: this silence of the board has latched the e-stop (checkBoardSilence), once per silence.
	silentTripped bool

	hasFrame    bool
	lastFrameAt time.Time
	parser      board.Stats
	malformed   uint64
	imuRate     rateMeter
	scanRate    rateMeter
	jitter      jitterStats
	batteryMV   int
	batLogAt    time.Time
	lastPadAt   time.Time
	hasPad      bool
	padHist     [6]padRaw
	padHistN    int

	motorFrames, stopFrames, encodeErrors, writeErrors uint64
	beats, beatErrors                                  uint64
	badCmds                                            uint64
	lastBadCmd                                         string

	pubs        map[pubKey]*pubInfo
	scanStreams map[int]int // reader pid -> open scan streams

	// scanRefusals counts refused scan senders for the log's rate (transport goroutines; the state record's
	// count is the transport's).
	scanRefusals atomic.Uint64
}

type padRaw struct {
	at time.Time
	f  board.Gamepad
}

func newLoopState(o Options, p params) *loopState {
	// The wall reading is taken next to the monotonic one: message stamps are startWall plus monotonic time
	// since start, so any work between the two readings would shift every stamp (it once made the state's
	// cmd_age put a command's arrival 2 ms after its real one under -race).
	now, startWall := o.Clock.Now(), o.wall.Now()
	pad, err := motion.NewPad(p.pad)
	if err != nil {
		// paramsFrom validated it; a locked default pad keeps the driver safe if that ever changes.
		o.Log.Error("gamepad config refused; using defaults", "err", err)
		pad, _ = motion.NewPad(motion.DefaultPadConfig())
	}
	r := &loopState{
		o: o, p: p, log: o.Log, clk: o.Clock,
		reqs:      make(chan request, 64),
		batches:   make(chan boardBatch, 64),
		readerErr: make(chan error, 1),
		done:      make(chan struct{}),

		tick:        time.Duration(float64(time.Second) / p.rateHz),
		statePeriod: 100 * time.Millisecond,

		gate:    motion.NewGate(p.limits),
		odom:    motion.NewOdometry(p.odom),
		calib:   motion.NewGyroCalibrator(p.calib),
		bias:    motion.NewGyroBias(p.bias, [3]float64{}),
		charger: charger.New(p.charger, nil),
		pad:     pad,

		start: now, startWall: startWall,
		pubs:        map[pubKey]*pubInfo{},
		scanStreams: map[int]int{},
	}
	r.stops = newStopsOrSafe(o)
	view := configView(o.Config)
	r.cfgView.Store(&view)
	// A frame on every change and at least every 0.2 s (seed: now - last_write > 0.2). Half a tick of slack
	// makes the refresh land on the 10th tick at 50 Hz instead of the 11th.
	r.refresh = MotorRefresh - r.tick/2
	if breakrule.On(breakrule.SelfEnable) {
		// The negative control of "no restart without a deliberate act" (a rosorin_breakrule build only; a
		// normal build drops this branch): a restarted driver forgets its latch and enables itself.
		_ = r.gate.Enable(true)
		return r
	}
	if o.StartLatched != "" {
		// A restart after a crash, a kill, a hang or a USB drop, or of a driver that was latched: the latch
		// survives the process (Options.StartLatched).
		r.gate.Trip(o.StartLatched)
		r.pad.Lock()
	}
	return r
}

// MotorRefresh: the board keeps the last speed forever, so the same frame is repeated at least this often; a
// board that missed one frame (a corrupted byte) gets it again within 0.2 s.
const MotorRefresh = 200 * time.Millisecond
