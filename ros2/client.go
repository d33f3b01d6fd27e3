package ros2

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2/dds"
)

// Peer is the other side of the driver's ROS 2 interface: a node that drives rosorin_board_driver (ours or
// the robot's original Python driver: same names) through its topics and services, as a planner, a teleop
// or the proofs (proofs/target's ROS 2 target) do.
type Peer struct {
	domain        int
	node          *Node
	ns, target    string // the driver node's namespace (CheckNamespace's form) and name
	estop         *dds.Writer
	enable, reset *ServiceClient
	mu            sync.Mutex
	readers       []*dds.Reader
	closed        bool
	subs          sync.WaitGroup // running Subscribe calls
}

// NewPeer joins domain as node name and makes the endpoints that talk to the driver node target in
// namespace ns.
func NewPeer(domain int, ns, target, name string) (*Peer, error) {
	n, err := NewNode(domain, ns, name)
	if err != nil {
		return nil, err
	}
	p := &Peer{domain: domain, node: n, ns: n.Namespace, target: target}
	fail := func(err error) (*Peer, error) { n.Close(); return nil, err }
	if p.enable, err = n.ServiceClient(p.resolve("~/enable"), srvSetBool); err != nil {
		return fail(err)
	}
	if p.reset, err = n.ServiceClient(p.resolve("~/reset_estop"), srvTrigger); err != nil {
		return fail(err)
	}
	return p, nil
}

// resolve is a name of the driver node's interface.
func (p *Peer) resolve(name string) string { return Resolve(p.ns, p.target, name) }

// Node is the peer's node.
func (p *Peer) Node() *Node { return p.node }

// EStop publishes std_msgs/Bool true on estop from the peer's own writer, once the driver's subscription
// is matched (up to ctx). The writer is made at the first call: an e-stop writer that comes and goes within
// seconds without a sample looks like a lost one-shot e-stop to the bridge, which latches in doubt.
func (p *Peer) EStop(ctx context.Context) error {
	p.mu.Lock()
	if p.estop == nil {
		w, err := p.node.p.NewWriter(TopicName(p.resolve("estop")), rosmsg.TypeName(typeBool), dds.Default, "")
		if err != nil {
			p.mu.Unlock()
			return err
		}
		p.estop = w
	}
	w := p.estop
	p.mu.Unlock()
	if err := waitMatched(ctx, p.node.clk, "estop subscription", w.Matched); err != nil {
		return err
	}
	return w.Write(cdr.Marshal(&rosmsg.Bool{Data: true}))
}

// oneShots numbers EStopOnce's nodes.
var oneShots atomic.Int64

// EStopOnce publishes std_msgs/Bool true on estop the way an operator does with `ros2 topic pub --once
// /estop std_msgs/msg/Bool '{data: true}'` in Humble: a new node (its own participant) and writer (reliable,
// transient-local, keep last 1), checked every 100 ms until a subscription is matched, one write, 100 ms
// (pub's --keep-alive), gone. now is read just before the write, and returned: the e-stop's time.
func (p *Peer) EStopOnce(ctx context.Context, now func() time.Time) (time.Time, error) {
	n, err := NewNode(p.domain, "", fmt.Sprintf("_stopproof_estop_once_%d", oneShots.Add(1)))
	if err != nil {
		return time.Time{}, err
	}
	defer n.Close()
	w, err := n.p.NewWriter(TopicName(p.resolve("estop")), rosmsg.TypeName(typeBool), dds.Latched, "")
	if err != nil {
		return time.Time{}, err
	}
	defer w.Close()
	for {
		if m, err := w.Matched(); err != nil {
			return time.Time{}, err
		} else if m > 0 {
			break
		}
		if p.node.clk.Sleep(ctx, 100*time.Millisecond) != nil {
			return time.Time{}, fmt.Errorf("ros2: no estop subscription matched the one-shot publisher (is the driver node on the graph, same ROS_DOMAIN_ID?): %w", ctx.Err())
		}
	}
	at := now()
	if err := w.Write(cdr.Marshal(&rosmsg.Bool{Data: true})); err != nil {
		return at, err
	}
	_ = p.node.clk.Sleep(context.WithoutCancel(ctx), 100*time.Millisecond)
	return at, nil
}

// Enable calls ~/enable.
func (p *Peer) Enable(ctx context.Context, on bool) (rosmsg.SetBoolResponse, error) {
	var r rosmsg.SetBoolResponse
	err := p.enable.Call(ctx, &rosmsg.SetBoolRequest{Data: on}, &r)
	return r, err
}

// Reset calls ~/reset_estop.
func (p *Peer) Reset(ctx context.Context) (rosmsg.TriggerResponse, error) {
	var r rosmsg.TriggerResponse
	err := p.reset.Call(ctx, &rosmsg.TriggerRequest{}, &r)
	return r, err
}

// CmdVel is one cmd_vel publisher on the graph (the two-publisher rule counts each).
type CmdVel struct{ w *dds.Writer }

// CmdVel creates a cmd_vel publisher and waits (up to ctx) until the driver's subscription matches it.
func (p *Peer) CmdVel(ctx context.Context) (*CmdVel, error) { return p.CmdVelOn(ctx, "cmd_vel") }

// CmdVelOn creates a Twist publisher on topic (relative names resolve in the peer's namespace:
// "manual/cmd_vel", "autonomous/cmd_vel", "cmd_vel") and waits (up to ctx) until the driver's subscription
// matches it.
func (p *Peer) CmdVelOn(ctx context.Context, topic string) (*CmdVel, error) {
	w, err := p.node.p.NewWriter(TopicName(p.resolve(topic)), rosmsg.TypeName(typeTwist), dds.Default, "")
	if err != nil {
		return nil, err
	}
	if err := waitMatched(ctx, p.node.clk, topic+" subscription", w.Matched); err != nil {
		w.Close()
		return nil, err
	}
	return &CmdVel{w: w}, nil
}

// Send publishes one planar twist.
func (c *CmdVel) Send(vx, vy, wz float64) error {
	return c.w.Write(cdr.Marshal(&rosmsg.Twist{Linear: rosmsg.Vector3{X: vx, Y: vy}, Angular: rosmsg.Vector3{Z: wz}}))
}

// Close deletes the publisher: it leaves the graph.
func (c *CmdVel) Close() error { return c.w.Close() }

// CmdVelStamped is a geometry_msgs/msg/TwistStamped publisher, for a driver node run with --cmd-vel-stamped.
type CmdVelStamped struct {
	w   *dds.Writer
	clk clock.Clock // stamps the headers: the peer node's
}

// CmdVelStampedOn is CmdVelOn with TwistStamped.
func (p *Peer) CmdVelStampedOn(ctx context.Context, topic string) (*CmdVelStamped, error) {
	w, err := p.node.p.NewWriter(TopicName(p.resolve(topic)), rosmsg.TypeName(typeTwistSt), dds.Default, "")
	if err != nil {
		return nil, err
	}
	if err := waitMatched(ctx, p.node.clk, topic+" subscription (TwistStamped)", w.Matched); err != nil {
		w.Close()
		return nil, err
	}
	return &CmdVelStamped{w: w, clk: p.node.clk}, nil
}

// Send publishes one planar twist stamped now in frame base_link.
func (c *CmdVelStamped) Send(vx, vy, wz float64) error {
	return c.w.Write(cdr.Marshal(&rosmsg.TwistStamped{Header: rosmsg.Header{Stamp: stamp(c.clk.Now()), FrameID: "base_link"},
		Twist: rosmsg.Twist{Linear: rosmsg.Vector3{X: vx, Y: vy}, Angular: rosmsg.Vector3{Z: wz}}}))
}

// Close deletes the publisher.
func (c *CmdVelStamped) Close() error { return c.w.Close() }

// Subscribe calls fn with every sample of the driver's topic (e.g. "~/state", "imu/data_raw") until ctx
// ends; q must be compatible with the publisher's (dds.Latched for ~/state).
func (p *Peer) Subscribe(ctx context.Context, topic, rosType string, q dds.QoS, fn func(dds.Sample)) error {
	r, err := p.node.p.NewReader(TopicName(p.resolve(topic)), rosmsg.TypeName(rosType), q, "")
	if err != nil {
		return err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		r.Close()
		return errors.New("ros2: peer closed")
	}
	p.readers = append(p.readers, r)
	p.subs.Add(1)
	p.mu.Unlock()
	defer p.subs.Done()
	defer func() {
		p.mu.Lock()
		for i, x := range p.readers {
			if x == r {
				p.readers = append(p.readers[:i], p.readers[i+1:]...)
				break
			}
		}
		p.mu.Unlock()
		r.Close()
	}()
	stop := context.AfterFunc(ctx, r.Wake)
	defer stop()
	var buf []dds.Sample
	for ctx.Err() == nil {
		if _, err := r.Wait(time.Second); err != nil {
			return err
		}
		p.mu.Lock()
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return errors.New("ros2: peer closed")
		}
		if buf, err = r.Take(buf[:0]); err != nil {
			return err
		}
		for _, s := range buf {
			fn(s)
		}
	}
	return ctx.Err()
}

// Close leaves the graph. Subscriptions in progress end first.
func (p *Peer) Close() error {
	p.mu.Lock()
	p.closed = true
	rs := append([]*dds.Reader(nil), p.readers...)
	p.mu.Unlock()
	for _, r := range rs {
		r.Wake()
	}
	p.subs.Wait() // no reader may be waited on when the participant goes
	p.enable.close()
	p.reset.close()
	return p.node.Close()
}

func waitMatched(ctx context.Context, clk clock.Clock, what string, matched func() (int, error)) error {
	for {
		n, err := matched()
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if clk.Sleep(ctx, 5*time.Millisecond) != nil {
			return fmt.Errorf("ros2: no %s matched (is the driver node on the graph, same ROS_DOMAIN_ID, RMW rmw_cyclonedds_cpp?): %w", what, ctx.Err())
		}
	}
}

// ServiceClient calls one service the way rmw_cyclonedds (Humble) does: the request carries the request
// writer's instance handle and a sequence number before the body, and the reply with the same 16 bytes is
// the answer.
type ServiceClient struct {
	Name string
	req  *dds.Writer
	rep  *dds.Reader
	mu   sync.Mutex // one call at a time
	seq  int64
	clk  clock.Clock // the node's
}

// ServiceClient creates a client of srvType at the fully qualified name fq.
func (n *Node) ServiceClient(fq, srvType string) (*ServiceClient, error) {
	var id [16]byte
	g := n.p.GUID()
	copy(id[:], g[:])
	ud := ServiceUserData("clientid", id)
	req, err := n.p.NewWriter(RequestTopic(fq), rosmsg.TypeName(srvType+"_Request"), dds.Services, ud)
	if err != nil {
		return nil, err
	}
	rep, err := n.p.NewReader(ReplyTopic(fq), rosmsg.TypeName(srvType+"_Response"), dds.ServiceRequests, ud)
	if err != nil {
		req.Close()
		return nil, err
	}
	return &ServiceClient{Name: fq, req: req, rep: rep, clk: n.clk}, nil
}

// Call sends req and decodes the matching reply into resp, waiting (up to ctx) for the server first.
func (c *ServiceClient) Call(ctx context.Context, req cdr.Marshaler, resp cdr.Unmarshaler) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := waitMatched(ctx, c.clk, "server of "+c.Name, c.req.Matched); err != nil {
		return err
	}
	if err := waitMatched(ctx, c.clk, "reply writer of "+c.Name, c.rep.Matched); err != nil {
		return err
	}
	c.seq++
	var hdr [RequestHeaderLen]byte
	binary.LittleEndian.PutUint64(hdr[:8], c.req.Handle())
	binary.LittleEndian.PutUint64(hdr[8:], uint64(c.seq))
	// Replies of earlier calls that timed out are still queued: drop them.
	if _, err := c.rep.Take(nil); err != nil {
		return err
	}
	if err := c.req.Write(joinRequest(hdr, req)); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, c.rep.Wake)
	defer stop()
	var buf []dds.Sample
	for {
		if ctx.Err() != nil {
			return fmt.Errorf("ros2: %s: no reply: %w", c.Name, ctx.Err())
		}
		if _, err := c.rep.Wait(200 * time.Millisecond); err != nil {
			return err
		}
		var err error
		if buf, err = c.rep.Take(buf[:0]); err != nil {
			return err
		}
		for _, s := range buf {
			h, body, err := SplitRequest(s.Data)
			if err != nil || h != hdr {
				continue // another client's reply, or garbage
			}
			if err := cdr.Unmarshal(body, resp); err != nil {
				return fmt.Errorf("ros2: %s: malformed reply: %w", c.Name, err)
			}
			return nil
		}
	}
}

func (c *ServiceClient) close() {
	c.rep.Wake()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rep.Close()
}
