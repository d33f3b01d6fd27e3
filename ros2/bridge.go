package ros2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/motion"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2/dds"
)

// Config configures the bridge.
type Config struct {
	// Socket is the driver's control socket.
	Socket string
	// Domain is ROS_DOMAIN_ID; Namespace and Name the node's.
	Domain          int
	Namespace, Name string
	Log             *slog.Logger
	// CmdVelStamped: the velocity inputs take geometry_msgs/msg/TwistStamped instead of Twist (the header is
	// not used; `rosorin-base ros2 --cmd-vel-stamped`).
	CmdVelStamped bool
	// PollPublishers is how often the matched publishers of each velocity input are counted and the e-stop
	// writers' announced samples checked (20 ms).
	PollPublishers time.Duration
	// Remap, when set, maps each fully qualified topic or service name the node uses (the -r rules of
	// --ros-args; protocol/rosargs).
	Remap func(fq string, service bool) string
	// EStopOneShot: an e-stop writer that leaves within this time of appearing, none of whose samples
	// reached the bridge, latches the e-stop (5 s; docs/ros2.md, "A one-shot e-stop").
	EStopOneShot time.Duration
	// EStopRepair is how long a sample that a writer on estop has announced may stay undelivered before
	// the bridge latches the e-stop in its place (1 s; docs/ros2.md, "A one-shot e-stop").
	EStopRepair time.Duration
	// AllowGraphEnable and AllowGraphReset are the bridge's read-only parameters allow_graph_enable and
	// allow_graph_reset (false unless given: --allow-graph-enable, ROSORIN_ROS2_ALLOW_GRAPH_ENABLE=1, or
	// rosorin-ros2 --ros-args -p allow_graph_enable:=true; the same for reset). Without DDS security any
	// participant on the domain can call ~/enable and ~/reset_estop: off, those refuse to turn motion on and
	// to clear a latch (docs/ros2.md, "Who may do what on the graph"). Disabling is always allowed.
	AllowGraphEnable, AllowGraphReset bool
	// SupervisorLog carries the supervisor's log records to /rosout (SupervisorLogFromEnv; nil: none).
	SupervisorLog *os.File
	// Enclave is the node's --enclave ROS argument ("" = none): the SROS2 enclave when ROS_SECURITY_ENABLE=true
	// and ROS_SECURITY_ENCLAVE_OVERRIDE does not name another (docs/ros2-security.md).
	Enclave string
	// Clock times the bridge's polls, retries and reports and stamps what it publishes; clock.Real{} when nil.
	Clock clock.Full
}

// Stats are the bridge's counters (logged every 10 s while they change, and at exit).
type Stats struct {
	CmdVel, CmdVelBad, EStops, EStopsBad, EStopsUndelivered, Requests, RequestsBad atomic.Uint64
	Published, PublishErrors, DriverErrors, MultiplePublishers                     atomic.Uint64
}

func (s *Stats) String() string {
	return fmt.Sprintf("cmd_vel %d (malformed/refused %d), estop %d (malformed %d, undelivered %d), service requests %d (malformed %d), published %d (errors %d), driver errors %d, multiple-publisher trips %d",
		s.CmdVel.Load(), s.CmdVelBad.Load(), s.EStops.Load(), s.EStopsBad.Load(), s.EStopsUndelivered.Load(), s.Requests.Load(), s.RequestsBad.Load(),
		s.Published.Load(), s.PublishErrors.Load(), s.DriverErrors.Load(), s.MultiplePublishers.Load())
}

// Bridge is the node rosorin_board_driver on the ROS 2 graph, a client of the driver's control socket.
type Bridge struct {
	cfg   Config
	log   *slog.Logger
	node  *Node
	c     *api.Client
	Stats Stats

	inputs        []*input
	estopReaders  []*dds.Reader
	enable, reset *ServiceServer
	params        *paramServer          // params.go
	pubs          map[string]*Publisher // by output topic
	// frames is the driver's frame configuration, read once by transforms (tf.go); framesReady is closed
	// when it is known, for the outputs that depend on it (output.when).
	frames      Frames
	framesReady chan struct{}
	// estopPending counts e-stops from the graph not yet confirmed by the driver: commands are held. Not
	// under an input's mu: a cmd_vel Send stuck on a stalled driver must not hold an e-stop up.
	estopPending atomic.Int32
	// recentEStops are the (writer, source time) of the last e-stop samples: a reliable publisher matches
	// two or three e-stop readers, and its sample counts once.
	estopMu      sync.Mutex
	recentEStops [16][2]int64
	recentNext   int
	// watch is the e-stop writers' announced-but-undelivered state (estopWatch), owned by publisherLoop.
	watch estopWatch
	// watchHealth is what the last polls of the watch could read (estopwatch.go; /diagnostics).
	watchMu     sync.Mutex
	watchHealth EStopWatchHealth
	// life ends when Run's context does: e-stop retries stop with the bridge.
	life    context.Context
	endLife context.CancelFunc
	// The observability endpoints (obs.go).
	rosout            *rosout
	diagPub, tfStatic *Publisher
}

// input is one velocity input of the driver's arbitration on the graph: its subscription and its own
// command stream to the driver (StreamCmdVelOn), open while a publisher is matched.
type input struct {
	in     motion.Input
	topic  string // relative: "cmd_vel", "autonomous/cmd_vel", "manual/cmd_vel"
	reader *dds.Reader

	mu             sync.Mutex // guards stream (held during a Send)
	stream         *api.CmdVelStream
	lastStreamOpen time.Time

	matched int  // owned by publisherLoop
	tripped bool // owned by publisherLoop
}

// inputTopic is input in's topic: "cmd_vel" for InputCmdVel (today's, unchanged), "<name>/cmd_vel" else.
func inputTopic(in motion.Input) string {
	if in == motion.InputCmdVel {
		return "cmd_vel"
	}
	return in.String() + "/cmd_vel"
}

// ROS 2 types of the interface's inputs and services, as their protocol/rosmsg types name themselves.
var (
	typeTwist   = (*rosmsg.Twist)(nil).ROSType()
	typeTwistSt = (*rosmsg.TwistStamped)(nil).ROSType()
	typeBool    = (*rosmsg.Bool)(nil).ROSType()
	srvSetBool  = serviceType((*rosmsg.SetBoolRequest)(nil))
	srvTrigger  = serviceType((*rosmsg.TriggerRequest)(nil))
)

// serviceType is the service of a request type: "std_srvs/srv/SetBool" of "std_srvs/srv/SetBool_Request".
func serviceType(req rosmsg.Message) string { return strings.TrimSuffix(req.ROSType(), "_Request") }

// output is one topic the node publishes from one of the driver's streams: the stream, the topic, its QoS, the
// conversion of one record of the stream into the message, which names its own ROS type, and when, if not nil,
// the condition on the driver's frame configuration under which the topic is published (/tf: publish_odom_tf;
// the publisher exists either way). A new topic is one entry of outputs, its conversion test and its words in
// the README's topic list (TestOutputsRegistry; internal/readmecheck reads the topics from this table).
type output struct {
	api, topic string
	qos        dds.QoS
	conv       func(line []byte) (rosMessage, error)
	when       func(Frames) bool
}

// rosMessage is a message the node publishes: its CDR and its ROS type.
type rosMessage interface {
	cdr.Marshaler
	ROSType() string
}

// rosType is the ROS type of o's messages, asked of the conversion's result for an empty record.
func (o output) rosType() string {
	m, _ := o.conv([]byte("{}"))
	if m == nil {
		return ""
	}
	return m.ROSType()
}

// decoded is the conversion of a stream whose records are JSON of T, by f.
func decoded[T any, M rosMessage](topic string, f func(*T) M) func([]byte) (rosMessage, error) {
	return func(line []byte) (rosMessage, error) {
		var v T
		if err := json.Unmarshal(line, &v); err != nil {
			return f(&v), fmt.Errorf("%s record from the driver: %w", topic, err)
		}
		return f(&v), nil
	}
}

// outputs are the node's published topics from the driver's streams. Publishers are reliable (they match both
// reliable and best-effort subscribers) except the scan, which has the sensor-data profile Nav2 expects.
// (/tf_static, from the configuration once: tf.go; /rosout: rosout.go; /diagnostics: diagnostics.go.)
var outputs = []output{
	{api.TopicIMU, "imu/data_raw", dds.Default, decoded(api.TopicIMU, IMUMsg), nil},
	{api.TopicBattery, "battery", dds.Default, decoded(api.TopicBattery, BatteryMsg), nil},
	{api.TopicOdom, "wheel/odom", dds.Default, decoded(api.TopicOdom, OdomMsg), nil},
	{api.TopicGamepad, "gamepad", dds.Default, decoded(api.TopicGamepad, JoyMsg), nil},
	{api.TopicScan, "scan", dds.SensorData, decoded(api.TopicScan, ScanMsg), nil},
	// ~/state carries the driver's state record as it is (the seed's ~/state JSON plus link health).
	{api.TopicState, "~/state", dds.Latched, func(l []byte) (rosMessage, error) { return &rosmsg.String{Data: string(l)}, nil }, nil},
	// ~/source carries the input name alone ("manual", "autonomous", "cmd_vel", "none"), as the peer's.
	{api.TopicSource, "~/source", dds.Latched, sourceMsg, nil},
	// ~/stops carries each stop the driver timed (issue 35), the api.StopRecord's JSON as the stop log and
	// `rosorin-base stops --json` have it; latched: a late subscriber gets the last stop (docs/ros2.md, "~/stops").
	{api.TopicStops, "~/stops", dds.Latched, stopMsg, nil},
	// /tf: odom -> base_link from each odometry record when publish_odom_tf is set (tf.go; docs/ros2.md, "tf").
	{api.TopicOdom, "/tf", tfQoS, decoded(api.TopicOdom, OdomTransform), publishOdomTF},
}

// sourceMsg is ~/source's conversion: the source name of a hand-over record, which must have one.
func sourceMsg(l []byte) (rosMessage, error) {
	var m api.SourceChange
	if err := json.Unmarshal(l, &m); err != nil {
		return &rosmsg.String{}, fmt.Errorf("%s record from the driver: %w", api.TopicSource, err)
	}
	if m.Source == "" {
		return &rosmsg.String{}, fmt.Errorf("%s record from the driver without a source", api.TopicSource)
	}
	return &rosmsg.String{Data: m.Source}, nil
}

// stopMsg is ~/stops' conversion: the stop record's JSON as the driver sent it, once it is known to be one
// (a record of a kind, with its seq).
func stopMsg(l []byte) (rosMessage, error) {
	var r api.StopRecord
	if err := json.Unmarshal(l, &r); err != nil {
		return &rosmsg.String{}, fmt.Errorf("%s record from the driver: %w", api.TopicStops, err)
	}
	if r.Kind == "" {
		return &rosmsg.String{}, fmt.Errorf("%s record from the driver without a kind", api.TopicStops)
	}
	return &rosmsg.String{Data: string(l)}, nil
}

// estopQoS are the e-stop readers, so that every publisher a user will meet matches at least one and none
// of its samples is skipped (docs/ros2.md, "A one-shot e-stop"):
//   - reliable, transient-local: `ros2 topic pub` (Humble: reliable, transient-local, depth 1) and latched
//     publishers; the writer's history is retrieved, so a sample written before this reader matched the
//     writer still arrives while the writer lives;
//   - reliable, volatile, CatchUp: the rclpy/rclcpp default profile; CatchUp keeps Cyclone from skipping a
//     new writer's first samples that arrive before its first heartbeat;
//   - best effort: a best-effort publisher matches no reliable reader; its lost samples are lost.
//
// A reliable transient-local publisher matches all three: its sample counts once (recentEStops).
var estopQoS = []dds.QoS{
	{Reliable: true, TransientLocal: true, Depth: 10},
	{Reliable: true, Depth: 10, CatchUp: true},
	{Reliable: false, Depth: 10},
}

// New creates the node and all its endpoints.
func New(cfg Config) (*Bridge, error) {
	if cfg.Name == "" {
		cfg.Name = NodeName
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.PollPublishers <= 0 {
		cfg.PollPublishers = 20 * time.Millisecond
	}
	if cfg.EStopRepair <= 0 {
		cfg.EStopRepair = time.Second
	}
	if cfg.EStopOneShot <= 0 {
		cfg.EStopOneShot = 5 * time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	var tee *api.LogTee
	cfg.Log, tee = api.TeeLog(cfg.Log, "ros2") // the bridge's own lines on /rosout (rosout.go)
	node, err := NewNodeWith(cfg.Domain, cfg.Namespace, cfg.Name, NodeOptions{Enclave: cfg.Enclave, Log: cfg.Log, Clock: cfg.Clock})
	if err != nil {
		return nil, err
	}
	node.Remap = cfg.Remap
	if err := dds.Internals(); err != nil {
		cfg.Log.Error("Cyclone DDS internals off: the e-stop watch's announced-sample rule and catch-up do not run (a lost e-stop sample is detected only when its publisher comes and goes within the one-shot time); /diagnostics shows it", "err", err)
	}
	b := &Bridge{cfg: cfg, log: cfg.Log, node: node, c: api.NewClient(cfg.Socket), pubs: map[string]*Publisher{},
		framesReady: make(chan struct{})}
	b.life, b.endLife = context.WithCancel(context.Background())
	b.watch.repair, b.watch.oneShot = cfg.EStopRepair, cfg.EStopOneShot
	fail := func(err error) (*Bridge, error) { node.Close(); return nil, err }
	for _, o := range outputs {
		p, err := node.Publisher(o.topic, o.rosType(), o.qos)
		if err != nil {
			return fail(err)
		}
		b.pubs[o.topic] = p
	}
	cmdType := typeTwist
	if cfg.CmdVelStamped {
		cmdType = typeTwistSt
	}
	for in := motion.Input(0); in < motion.NumInputs; in++ {
		i := &input{in: in, topic: inputTopic(in)}
		if i.reader, _, err = node.Subscription(i.topic, cmdType, dds.Default); err != nil {
			return fail(err)
		}
		b.inputs = append(b.inputs, i)
	}
	for _, q := range estopQoS {
		r, _, err := node.Subscription("estop", typeBool, q)
		if err != nil {
			return fail(err)
		}
		b.estopReaders = append(b.estopReaders, r)
	}
	if err := b.newObs(tee); err != nil {
		return fail(err)
	}
	if b.enable, err = node.Service("~/enable", srvSetBool); err != nil {
		return fail(err)
	}
	if b.reset, err = node.Service("~/reset_estop", srvTrigger); err != nil {
		return fail(err)
	}
	if b.params, err = newParamServer(b); err != nil {
		return fail(err)
	}
	return b, nil
}

// Node is the bridge's node.
func (b *Bridge) Node() *Node { return b.node }

// Run serves until ctx ends. The driver may come and go (a restart): every stream reconnects.
func (b *Bridge) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopLife := context.AfterFunc(ctx, b.endLife)
	defer stopLife()
	var wg sync.WaitGroup
	readers := []*dds.Reader{b.enable.Req, b.reset.Req}
	handlers := []func(dds.Sample){b.onEnable, b.onReset}
	readers, handlers = b.params.addReaders(readers, handlers)
	for _, in := range b.inputs {
		readers = append(readers, in.reader)
		handlers = append(handlers, func(s dds.Sample) { b.onCmdVel(in, s) })
	}
	for _, r := range b.estopReaders {
		readers = append(readers, r)
		handlers = append(handlers, b.onEStop)
	}
	for i, r := range readers {
		wg.Add(1)
		go func() { defer wg.Done(); b.readLoop(ctx, r, handlers[i]) }()
	}
	for _, o := range outputs {
		wg.Add(1)
		go func() { defer wg.Done(); b.follow(ctx, o) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); b.publisherLoop(ctx) }()
	wg.Add(1)
	go func() { defer wg.Done(); b.params.run(ctx) }()
	b.runObs(ctx, &wg)
	if sec := b.node.Security(); sec.Secured {
		b.log.Info(GraphAccessSecured(b.cfg.Domain, sec, b.cfg.AllowGraphEnable, b.cfg.AllowGraphReset))
	} else {
		b.log.Warn(GraphAccess(b.cfg.Domain, b.cfg.AllowGraphEnable, b.cfg.AllowGraphReset))
	}
	b.log.Info("ROS 2 node up", "node", b.node.Resolve("~"), "domain", b.cfg.Domain, "socket", b.cfg.Socket)
	<-ctx.Done()
	for _, r := range readers {
		r.Wake()
	}
	wg.Wait()
	b.closeStreams("bridge stopping")
	for _, r := range readers {
		r.Close()
	}
	b.log.Info("ROS 2 node down", "stats", b.Stats.String())
	return b.node.Close()
}

func (b *Bridge) readLoop(ctx context.Context, r *dds.Reader, fn func(dds.Sample)) {
	var buf []dds.Sample
	for ctx.Err() == nil {
		if _, err := r.Wait(500 * time.Millisecond); err != nil {
			if ctx.Err() == nil {
				b.log.Error("DDS wait failed", "err", err)
			}
			return
		}
		var err error
		if buf, err = r.Take(buf[:0]); err != nil {
			b.log.Error("DDS take failed", "err", err)
			return
		}
		for _, s := range buf {
			fn(s)
		}
	}
}

// peerName is what the bridge tells the driver in reasons.
const peerName = "ROS 2"

func (b *Bridge) onCmdVel(in *input, s dds.Sample) {
	b.Stats.CmdVel.Add(1)
	decode := DecodeTwist
	if b.cfg.CmdVelStamped {
		decode = DecodeTwistStamped
	}
	t, err := decode(s.Data)
	if err != nil {
		n := b.Stats.CmdVelBad.Add(1)
		if n <= 5 || n%100 == 0 {
			b.log.Warn("cmd_vel dropped: the wheels are stopped (a zero twist goes to the driver)", "topic", in.topic, "err", err, "bytes", len(s.Data), "count", n)
		}
		// As the socket does for bad JSON: a broken sender never leaves the wheels on its last good command.
		t = api.Twist{}
	}
	b.sendCmd(in, t)
}

func (b *Bridge) sendCmd(in *input, t api.Twist) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if b.estopPending.Load() > 0 {
		return // an e-stop is on its way to the driver: nothing that moves goes first
	}
	if in.stream == nil {
		b.openStreamLocked(in)
		if in.stream == nil {
			return
		}
	}
	if err := in.stream.Send(t); err != nil {
		b.Stats.DriverErrors.Add(1)
		b.log.Warn("cmd_vel stream to the driver failed; reopening at the next command", "topic", in.topic, "err", err)
		go in.stream.Close()
		in.stream = nil
	}
}

func (b *Bridge) openStreamLocked(in *input) {
	now := b.cfg.Clock.Now()
	if now.Sub(in.lastStreamOpen) < 100*time.Millisecond {
		return
	}
	in.lastStreamOpen = now
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := b.c.StreamCmdVelOn(context.WithoutCancel(ctx), in.in.String())
	if err != nil {
		b.Stats.DriverErrors.Add(1)
		b.log.Warn("cannot open the cmd_vel stream to the driver", "topic", in.topic, "err", err)
		return
	}
	in.stream = st
}

func (b *Bridge) closeStream(in *input, why string) {
	in.mu.Lock()
	st := in.stream
	in.stream = nil
	in.mu.Unlock()
	if st != nil {
		res, err := st.Close()
		b.log.Info("cmd_vel stream to the driver closed", "topic", in.topic, "why", why, "accepted", res.Accepted, "rejected", res.Rejected, "dropped", res.Dropped, "err", err)
	}
}

func (b *Bridge) closeStreams(why string) {
	for _, in := range b.inputs {
		b.closeStream(in, why)
	}
}

func (b *Bridge) onEStop(s dds.Sample) {
	b.watch.receivedFrom(s.Writer, b.cfg.Clock.Now())
	key := [2]int64{int64(s.Writer), s.SourceTime.UnixNano()}
	b.estopMu.Lock()
	dup := false
	for _, k := range b.recentEStops {
		dup = dup || k == key
	}
	if !dup {
		b.recentEStops[b.recentNext] = key
		b.recentNext = (b.recentNext + 1) % len(b.recentEStops)
	}
	b.estopMu.Unlock()
	if dup {
		return
	}
	var m rosmsg.Bool
	if err := cdr.Unmarshal(s.Data, &m); err != nil {
		// A malformed message on the e-stop topic is someone trying to stop the robot: latch anyway.
		b.Stats.EStopsBad.Add(1)
		b.log.Warn("malformed estop message: latching the e-stop anyway", "err", err, "bytes", len(s.Data))
		b.estop("malformed estop message (ROS 2)")
		return
	}
	if !m.Data {
		return // std_msgs/Bool false on estop: nothing (the seed ignored it too)
	}
	b.Stats.EStops.Add(1)
	reason := "estop topic (ROS 2)"
	// A transient-local publisher's history reaches a new reader (a restarted bridge) long after it was
	// written: latched all the same (that publisher's last word is an e-stop), and the reason says so.
	if age := b.cfg.Clock.Now().Sub(s.SourceTime); age > time.Second && s.SourceTime.Unix() > 0 {
		reason = fmt.Sprintf("estop topic (ROS 2), written %.1f s before it arrived (a publisher's history)", age.Seconds())
	}
	b.estop(reason)
}

// estop latches the driver's e-stop. Until the driver confirms, velocity commands from the graph are held
// and the cmd_vel streams are closed, so the driver's deadman stops the wheels even if the e-stop request
// cannot get through. A failed request is retried (deliverEStop) until the driver confirms the latch or is
// gone, or the bridge stops.
func (b *Bridge) estop(reason string) {
	b.estopPending.Add(1)
	defer b.estopPending.Add(-1)
	deliverEStop(b.life, b.c, reason, b.log, sleepOn(b.cfg.Clock), func() {
		b.Stats.DriverErrors.Add(1)
	}, func() { go b.closeStreams("e-stop not delivered") })
}

// E-stop retries: the first after EStopRetryFirst, doubling up to EStopRetryMax. Short, because every
// retry is a chance for a driver that stumbled (a full accept queue, a request that timed out under load)
// to latch; capped, so that a driver that keeps failing is not hammered, and each failure is still logged.
const (
	EStopRetryFirst = 20 * time.Millisecond
	EStopRetryMax   = 200 * time.Millisecond
)

// estopClient is what deliverEStop needs of the driver's socket (*api.Client).
type estopClient interface {
	EStop(ctx context.Context, reason string) (api.Reply, error)
	State(ctx context.Context) (api.State, error)
}

var _ estopClient = (*api.Client)(nil)

// EStopOutcome is how an e-stop delivery ended.
type EStopOutcome int

const (
	// EStopConfirmed: the driver answered success.
	EStopConfirmed EStopOutcome = iota
	// EStopLatchedByState: the request failed (non-2xx, success false, no answer), but the driver's state
	// record shows the e-stop latched (by this request or another).
	EStopLatchedByState
	// EStopDriverGone: nothing listens on the socket (refused, or no socket file). A driver that comes back
	// after a crash, kill, hang or USB drop starts latched (driver/child.go); the supervisor wrote a stop frame
	// when it died. Retrying against nothing would only hold the bridge's commands forever.
	EStopDriverGone
	// EStopCancelled: the bridge stopped before the driver confirmed (its streams close: the deadman).
	EStopCancelled
)

func (o EStopOutcome) String() string {
	return [...]string{"confirmed", "latched (state record)", "driver gone", "cancelled"}[o]
}

// deliverEStop sends the e-stop until the driver confirms the latch (Reply.Success, or its state record
// shows the e-stop latched), the driver is gone (api.ErrNoDriver), or ctx ends. Both ways a driver may refuse
// an e-stop are failures: 200 with success false, and a non-2xx status (an *api.HTTPError). Each failure is
// logged at ERROR and counted (failed); firstFailure runs once, at the first. sleep waits between attempts
// (false: ctx ended). It returns how it ended and the number of e-stop requests sent.
func deliverEStop(ctx context.Context, c estopClient, reason string, log *slog.Logger,
	sleep func(context.Context, time.Duration) bool, failed, firstFailure func()) (EStopOutcome, int) {
	wait := EStopRetryFirst
	for attempt := 1; ; attempt++ {
		rctx, cancel := context.WithTimeout(ctx, time.Second)
		r, err := c.EStop(rctx, reason)
		cancel()
		if err == nil && r.Success {
			if attempt > 1 {
				log.Warn("e-stop delivered to the driver after failed attempts", "attempts", attempt, "reason", reason)
			}
			return EStopConfirmed, attempt
		}
		if ctx.Err() != nil {
			log.Error("e-stop not confirmed by the driver before the bridge stopped (its velocity streams close: the deadman stops the wheels)", "attempts", attempt, "reason", reason)
			return EStopCancelled, attempt
		}
		if errors.Is(err, api.ErrNoDriver) {
			failed()
			log.Error("e-stop not delivered: no driver on the socket (gone or restarting: the supervisor wrote a stop frame when it died, and a restarted driver starts latched); not retried",
				"err", err, "attempts", attempt, "reason", reason)
			return EStopDriverGone, attempt
		}
		why := "driver answered success=false"
		if err != nil {
			why = err.Error()
		} else if r.Message != "" {
			why += ": " + r.Message
		}
		// The latch may be there anyway (a second e-stop, a refusal that came after latching): the state
		// record is the driver's word on it.
		sctx, scancel := context.WithTimeout(ctx, 500*time.Millisecond)
		st, serr := c.State(sctx)
		scancel()
		if serr == nil && st.EStop != nil {
			log.Warn("e-stop request failed, but the driver's state shows the e-stop latched", "failure", why, "latched", *st.EStop, "attempts", attempt)
			return EStopLatchedByState, attempt
		}
		failed()
		log.Error("e-stop request to the driver failed: holding all commands from the graph and retrying",
			"failure", why, "attempt", attempt, "retry_in", wait, "reason", reason)
		if attempt == 1 && firstFailure != nil {
			firstFailure()
		}
		if !sleep(ctx, wait) {
			log.Error("e-stop not confirmed by the driver before the bridge stopped (its velocity streams close: the deadman stops the wheels)", "attempts", attempt, "reason", reason)
			return EStopCancelled, attempt
		}
		wait = min(2*wait, EStopRetryMax)
	}
}

// sleepOn is deliverEStop's sleep on c: it waits d or until ctx ends (false).
func sleepOn(c clock.Clock) func(ctx context.Context, d time.Duration) bool {
	return func(ctx context.Context, d time.Duration) bool { return c.Sleep(ctx, d) == nil }
}

// sleepCtx is sleepOn the real clock.
var sleepCtx = sleepOn(clock.Real{})

func (b *Bridge) onEnable(s dds.Sample) {
	b.Stats.Requests.Add(1)
	hdr, body, err := SplitRequest(s.Data)
	var req rosmsg.SetBoolRequest
	if err == nil {
		err = cdr.Unmarshal(body, &req)
	}
	if err != nil {
		b.Stats.RequestsBad.Add(1)
		b.log.Warn("malformed ~/enable request dropped", "err", err, "bytes", len(s.Data))
		return
	}
	if req.Data && !b.cfg.AllowGraphEnable {
		b.log.Warn("~/enable refused: enabling over the ROS graph is off", "param", ParamAllowGraphEnable)
		b.reply(b.enable, hdr, &rosmsg.SetBoolResponse{Success: false, Message: GraphEnableRefused})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := b.c.Enable(ctx, req.Data)
	if err != nil {
		b.Stats.DriverErrors.Add(1)
		r = api.Reply{Message: "driver unreachable: " + err.Error()}
	}
	b.reply(b.enable, hdr, &rosmsg.SetBoolResponse{Success: r.Success, Message: r.Message})
}

func (b *Bridge) onReset(s dds.Sample) {
	b.Stats.Requests.Add(1)
	hdr, body, err := SplitRequest(s.Data)
	if err == nil {
		err = cdr.Unmarshal(body, &rosmsg.TriggerRequest{})
	}
	if err != nil {
		b.Stats.RequestsBad.Add(1)
		b.log.Warn("malformed ~/reset_estop request dropped", "err", err, "bytes", len(s.Data))
		return
	}
	if !b.cfg.AllowGraphReset {
		b.log.Warn("~/reset_estop refused: clearing the e-stop over the ROS graph is off", "param", ParamAllowGraphReset)
		b.reply(b.reset, hdr, &rosmsg.TriggerResponse{Success: false, Message: GraphResetRefused})
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := b.c.Reset(ctx)
	if err != nil {
		b.Stats.DriverErrors.Add(1)
		r = api.Reply{Message: "driver unreachable: " + err.Error()}
	}
	b.reply(b.reset, hdr, &rosmsg.TriggerResponse{Success: r.Success, Message: r.Message})
}

// The bridge's own parameters (params.go serves them, read-only, beside the driver's).
const (
	ParamAllowGraphEnable = "allow_graph_enable"
	ParamAllowGraphReset  = "allow_graph_reset"
	// AllowGraphEnableEnv and AllowGraphResetEnv set them for rosorin-ros2 (a `run --ros2` child inherits them
	// from the service's environment).
	AllowGraphEnableEnv = "ROSORIN_ROS2_ALLOW_GRAPH_ENABLE"
	AllowGraphResetEnv  = "ROSORIN_ROS2_ALLOW_GRAPH_RESET"
)

// The answers of ~/enable (data: true) and ~/reset_estop while their parameter is false: why, and how to allow it.
var (
	GraphEnableRefused = "enabling motion over the ROS graph is off (allow_graph_enable false, the default: every participant that may call the service could enable, " +
		"which without DDS security is any participant on the domain); " +
		"enable on the robot (rosorin-base enable), or start the bridge with allow_graph_enable true (" + AllowGraphEnableEnv +
		"=1 in the service's environment, rosorin-ros2 --allow-graph-enable, or --ros-args -p allow_graph_enable:=true) and restart it"
	GraphResetRefused = "clearing the e-stop over the ROS graph is off (allow_graph_reset false, the default: every participant that may call the service could reset, " +
		"which without DDS security is any participant on the domain); " +
		"reset on the robot (rosorin-base reset), or start the bridge with allow_graph_reset true (" + AllowGraphResetEnv +
		"=1 in the service's environment, rosorin-ros2 --allow-graph-reset, or --ros-args -p allow_graph_reset:=true) and restart it"
)

// GraphAccess is the bridge's start-up warning: what any participant on the domain can do to the robot.
func GraphAccess(domain int, allowEnable, allowReset bool) string {
	say := func(on bool, param string) string {
		if on {
			return "ALLOWED (" + param + " true)"
		}
		return "refused (" + param + " false)"
	}
	return fmt.Sprintf("ROS 2 without DDS security: any participant on domain %d can drive the robot through the velocity inputs "+
		"(manual/cmd_vel, autonomous/cmd_vel, cmd_vel) while it is enabled, latch the e-stop (estop), disable it (~/enable false) "+
		"and set its runtime limits (~/set_parameters, never beyond the values the driver started with); ~/enable true (turn motion on): %s; ~/reset_estop (clear the latch): %s",
		domain, say(allowEnable, ParamAllowGraphEnable), say(allowReset, ParamAllowGraphReset))
}

// GraphAccessSecured is the start-up line of a bridge enrolled in an SROS2 enclave: who may do what on the
// graph is what the signed permissions grant, not anyone on the domain.
func GraphAccessSecured(domain int, sec Security, allowEnable, allowReset bool) string {
	say := func(on bool, param string) string {
		if on {
			return "served (" + param + " true)"
		}
		return "refused (" + param + " false)"
	}
	return fmt.Sprintf("ROS 2 with DDS security (SROS2): enclave %s of keystore %s, ROS_SECURITY_STRATEGY=%s; on domain %d only "+
		"participants with a certificate of the enclave's identity CA are heard, and who may drive the robot (the velocity inputs), "+
		"latch the e-stop, call ~/enable and ~/reset_estop and set parameters is what their signed permissions grant; "+
		"~/enable true (turn motion on) from a granted caller: %s; ~/reset_estop from a granted caller: %s",
		sec.Enclave, sec.Keystore, sec.Strategy, domain, say(allowEnable, ParamAllowGraphEnable), say(allowReset, ParamAllowGraphReset))
}

func (b *Bridge) reply(s *ServiceServer, hdr [RequestHeaderLen]byte, m cdr.Marshaler) {
	if err := s.Reply(hdr, m); err != nil {
		b.Stats.PublishErrors.Add(1)
		b.log.Warn("service reply failed", "service", s.Name, "err", err)
	}
}

// publisherLoop applies the two-publisher rule to the graph, per input: two or more matched publications on
// one input's topic latch the e-stop (the seed counted cmd_vel's publishers the same way); publishers on
// different inputs are arbitrated by the driver. A matched publisher holds its input's stream to the driver,
// so a socket sender on the same input at the same time trips the driver's own rule; no matched publisher
// closes it.
func (b *Bridge) publisherLoop(ctx context.Context) {
	clk := b.cfg.Clock
	t := clk.NewTicker(b.cfg.PollPublishers)
	defer t.Stop()
	lastLog := clk.Now()
	last := b.Stats.String()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
		if reason := b.checkEStopWriters(clk.Now()); reason != "" {
			b.Stats.EStopsUndelivered.Add(1)
			b.log.Error("latching the e-stop in doubt: something sent on estop did not arrive", "reason", reason)
			go b.estop(reason)
		}
		for _, in := range b.inputs {
			b.countPublishers(in)
		}
		if clk.Now().Sub(lastLog) > 10*time.Second {
			lastLog = clk.Now()
			if s := b.Stats.String(); s != last {
				last = s
				b.log.Info("ROS 2 bridge", "stats", s)
			}
		}
	}
}

// countPublishers applies the two-publisher rule to one input and opens or closes its stream.
func (b *Bridge) countPublishers(in *input) {
	n, err := in.reader.Matched()
	if err != nil {
		return
	}
	prev := in.matched
	in.matched = n
	if n != prev {
		b.log.Info("cmd_vel publishers on the graph", "topic", in.topic, "matched", n)
	}
	switch {
	case n >= 2 && !in.tripped:
		in.tripped = true
		b.Stats.MultiplePublishers.Add(1)
		go b.estop(fmt.Sprintf("%s (%s: %d matched)", motion.PublishersReason(in.in), peerName, n))
	case n < 2:
		in.tripped = false
	}
	switch {
	case n == 0 && prev > 0:
		go b.closeStream(in, "no publisher left on the graph")
	case n > 0 && prev == 0:
		// A matched publisher is a publisher, commands or not (as on the graph): hold its stream now.
		go func() {
			in.mu.Lock()
			defer in.mu.Unlock()
			if in.stream == nil && b.estopPending.Load() == 0 {
				b.openStreamLocked(in)
			}
		}()
	}
}

// follow publishes o's stream on its topic, reconnecting while the driver is away; an output with a
// condition first waits for the driver's frame configuration, and ends if the condition is false.
func (b *Bridge) follow(ctx context.Context, o output) {
	if o.when != nil {
		select {
		case <-ctx.Done():
			return
		case <-b.framesReady:
		}
		if !o.when(b.frames) {
			return
		}
	}
	p := b.pubs[o.topic]
	warned := false
	for ctx.Err() == nil {
		err := b.c.Follow(ctx, o.api, func(line []byte) error {
			m, err := o.conv(line)
			if err != nil {
				return err
			}
			if err := p.Publish(m); err != nil {
				b.Stats.PublishErrors.Add(1)
				return nil
			}
			b.Stats.Published.Add(1)
			warned = false
			return nil
		})
		if ctx.Err() != nil {
			return
		}
		if !warned {
			b.log.Warn("driver stream ended; reconnecting", "topic", o.api, "ros_topic", o.topic, "err", err)
			warned = true
		}
		_ = b.cfg.Clock.Sleep(ctx, 200*time.Millisecond)
	}
}
