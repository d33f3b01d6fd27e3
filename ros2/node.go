package ros2

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/cdr"
	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/protocol/rosname"
	"github.com/rosorin/rosorin/ros2/dds"
	"github.com/rosorin/rosorin/ros2/sros2"
)

// Node is a ROS 2 node at the DDS level, as rmw_cyclonedds (Humble) lays one out: one participant (user
// data "enclave=/;"), topics "rt/...", services on "rq/...Request" and "rr/...Reply", and the node's entry on
// ros_discovery_info (so `ros2 node list` sees it), republished whenever an endpoint is added.
type Node struct {
	Name, Namespace string // Namespace in CheckNamespace's form ("" or "/robot1")
	// Remap, when set, maps the fully qualified name of each topic and service the node creates (rcl's remap
	// rules, applied after resolution as rcl_remap_topic_name does).
	Remap func(fq string, service bool) string

	p    *dds.Participant
	disc *dds.Writer
	sec  Security
	clk  clock.Clock // NodeOptions.Clock

	mu               sync.Mutex
	readers, writers []dds.GUID
}

// NewNode joins domain as node name in namespace ns. With ROS 2 security on (ROS_SECURITY_ENABLE=true and
// the other SROS2 variables: docs/ros2-security.md) its participant is enrolled in its enclave.
func NewNode(domain int, ns, name string) (*Node, error) {
	return NewNodeWith(domain, ns, name, NodeOptions{})
}

// NodeOptions are what a node takes beyond its name: its ROS arguments' enclave and where it logs.
type NodeOptions struct {
	// Enclave is the node's --enclave ROS argument ("" = none); ROS_SECURITY_ENCLAVE_OVERRIDE wins over it,
	// as in rcl.
	Enclave string
	// Log receives the WARN of a Permissive fallback to no security (nil: slog.Default()).
	Log *slog.Logger
	// Clock times the node's waits for matches and checks its enclave's validity (nil: clock.Real{}).
	Clock clock.Clock
}

// Security is how a node's participant joined the domain.
type Security struct {
	// Secured: enrolled in Enclave of Keystore (DDS Security on); false: an unsecured participant.
	Secured           bool
	Enclave, Keystore string
	Strategy          sros2.Strategy
}

// NewNodeWith is NewNode with options.
func NewNodeWith(domain int, ns, name string, o NodeOptions) (*Node, error) {
	ns, err := CheckNamespace(ns)
	if err != nil {
		return nil, err
	}
	if err := rosname.CheckToken(name); err != nil {
		return nil, fmt.Errorf("node name %q: %w", name, err)
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	p, sec, err := nodeParticipant(domain, o)
	if err != nil {
		return nil, err
	}
	n := &Node{Name: name, Namespace: ns, p: p, sec: sec, clk: o.Clock}
	if n.disc, err = p.NewWriter(DiscoveryTopic, DiscoveryType, dds.Latched, ""); err != nil {
		p.Close()
		return nil, err
	}
	return n, n.announce()
}

// Security is how the node's participant joined: enrolled in an enclave or not.
func (n *Node) Security() Security { return n.sec }

// nodeParticipant is the node's participant as rcl and rmw_cyclonedds make it: unsecured (user data
// "enclave=/;") unless ROS_SECURITY_ENABLE=true; then enrolled in the enclave of ROS_SECURITY_KEYSTORE
// (ROS_SECURITY_ENCLAVE_OVERRIDE, else the --enclave argument o.Enclave, else "/") with user data
// "enclave=<enclave>;". An unusable enclave refuses the node under ROS_SECURITY_STRATEGY=Enforce and is
// logged at WARN on o.Log under Permissive, which then runs unsecured.
func nodeParticipant(domain int, o NodeOptions) (*dds.Participant, Security, error) {
	s, err := sros2.FromEnv(os.Getenv, o.Enclave)
	if err != nil {
		return nil, Security{}, err
	}
	plain := Security{Enclave: "/", Keystore: s.Keystore, Strategy: s.Strategy}
	e, warn, err := sros2.Resolve(s, sros2.Options{Clock: o.Clock})
	if err != nil {
		return nil, Security{}, err
	}
	if e != nil {
		if derr := e.CheckDomain(domain); derr != nil {
			if s.Strategy == sros2.Enforce {
				return nil, Security{}, fmt.Errorf("ROS 2 security enforced (ROS_SECURITY_STRATEGY=Enforce): %w", derr)
			}
			o.Log.Warn(fmt.Sprintf("ROS 2 security is on but enclave %q cannot join this domain, so this node runs WITHOUT security (ROS_SECURITY_STRATEGY=Permissive): %v", e.Name, derr))
			p, err := dds.NewParticipant(domain, "enclave=/;")
			return p, plain, err
		}
		var props []dds.Property
		for _, p := range e.Properties(sros2.DefaultPlugins()) {
			props = append(props, dds.Property{Name: p.Name, Value: p.Value})
		}
		p, perr := dds.NewSecureParticipant(domain, e.UserData(), props)
		if perr == nil {
			return p, Security{Secured: true, Enclave: e.Name, Keystore: s.Keystore, Strategy: s.Strategy}, nil
		}
		if s.Strategy == sros2.Enforce {
			return nil, Security{}, fmt.Errorf("ROS 2 security enforced (ROS_SECURITY_STRATEGY=Enforce): Cyclone DDS refused enclave %q: %w", e.Name, perr)
		}
		warn = fmt.Errorf("Cyclone DDS refused enclave %q, so this node runs WITHOUT security (ROS_SECURITY_STRATEGY=Permissive): %w", e.Name, perr)
	}
	if warn != nil {
		o.Log.Warn(warn.Error())
	}
	p, err := dds.NewParticipant(domain, "enclave=/;")
	return p, plain, err
}

// Resolve is name's fully qualified form for this node.
func (n *Node) Resolve(name string) string { return Resolve(n.Namespace, n.Name, name) }

// resolve is name's fully qualified form after the node's remapping.
func (n *Node) resolve(name string, service bool) string {
	fq := n.Resolve(name)
	if n.Remap != nil {
		fq = n.Remap(fq, service)
	}
	return fq
}

// announce publishes the node's entry on ros_discovery_info.
func (n *Node) announce() error {
	n.mu.Lock()
	ns := n.Namespace
	if ns == "" {
		ns = "/"
	}
	info := rosmsg.ParticipantEntitiesInfo{Gid: rosmsg.GidFromGUID(n.p.GUID()), Nodes: []rosmsg.NodeEntitiesInfo{{
		NodeNamespace: ns, NodeName: n.Name,
		ReaderGids: gids(n.readers), WriterGids: gids(n.writers),
	}}}
	n.mu.Unlock()
	return n.disc.Write(cdr.Marshal(&info))
}

func gids(g []dds.GUID) []rosmsg.Gid {
	out := make([]rosmsg.Gid, len(g))
	for i := range g {
		out[i] = rosmsg.GidFromGUID(g[i])
	}
	return out
}

// Publisher writes one ROS message type on one topic.
type Publisher struct {
	Topic string // fully qualified
	w     *dds.Writer
	mu    sync.Mutex
	cw    *cdr.Writer
}

// Publisher creates a publisher of rosType ("sensor_msgs/msg/Imu") on topic (resolved against the node).
func (n *Node) Publisher(topic, rosType string, q dds.QoS) (*Publisher, error) {
	fq := n.resolve(topic, false)
	w, err := n.p.NewWriter(TopicName(fq), rosmsg.TypeName(rosType), q, "")
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.writers = append(n.writers, w.GUID())
	n.mu.Unlock()
	return &Publisher{Topic: fq, w: w, cw: cdr.NewWriter(make([]byte, 0, 512))}, n.announce()
}

// Publish encodes and writes m.
func (p *Publisher) Publish(m cdr.Marshaler) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cw.Reset()
	m.MarshalCDR(p.cw)
	return p.w.Write(p.cw.Bytes())
}

// Matched is the number of subscriptions matched now.
func (p *Publisher) Matched() (int, error) { return p.w.Matched() }

// Subscription creates a reader of rosType on topic; the caller takes raw samples and decodes them.
func (n *Node) Subscription(topic, rosType string, q dds.QoS) (*dds.Reader, string, error) {
	fq := n.resolve(topic, false)
	r, err := n.p.NewReader(TopicName(fq), rosmsg.TypeName(rosType), q, "")
	if err != nil {
		return nil, fq, err
	}
	n.mu.Lock()
	n.readers = append(n.readers, r.GUID())
	n.mu.Unlock()
	return r, fq, n.announce()
}

// ServiceServer is a ROS 2 service server's two endpoints (request reader, reply writer).
type ServiceServer struct {
	Name string // fully qualified
	Req  *dds.Reader
	rep  *dds.Writer
	clk  clock.Clock // the node's
}

// Service creates a server for srvType ("std_srvs/srv/SetBool") at name.
func (n *Node) Service(name, srvType string) (*ServiceServer, error) {
	fq := n.resolve(name, true)
	var id [16]byte
	g := n.p.GUID()
	copy(id[:12], g[:12])
	if _, err := rand.Read(id[12:]); err != nil {
		return nil, err
	}
	ud := ServiceUserData("serviceid", id)
	// CatchUp: a fresh client (`ros2 service call`) writes its one request as soon as it has matched us;
	// it must not be skipped for arriving before the client's first heartbeat (docs/ros2.md).
	req, err := n.p.NewReader(RequestTopic(fq), rosmsg.TypeName(srvType+"_Request"), dds.ServiceRequests, ud)
	if err != nil {
		return nil, err
	}
	rep, err := n.p.NewWriter(ReplyTopic(fq), rosmsg.TypeName(srvType+"_Response"), dds.Services, ud)
	if err != nil {
		req.Close()
		return nil, err
	}
	n.mu.Lock()
	n.readers = append(n.readers, req.GUID())
	n.writers = append(n.writers, rep.GUID())
	n.mu.Unlock()
	return &ServiceServer{Name: fq, Req: req, rep: rep, clk: n.clk}, n.announce()
}

// RequestHeaderLen is rmw_cyclonedds' service header before the body: the client's 64-bit request-writer
// id and a 64-bit sequence number, both copied back unchanged in the reply.
const RequestHeaderLen = 16

// SplitRequest returns a request's 16-byte header and its body as a message of its own (the encapsulation
// header followed by the body; the body starts 8-aligned, so CDR alignment is unchanged).
func SplitRequest(b []byte) (hdr [RequestHeaderLen]byte, body []byte, err error) {
	if len(b) < cdr.HeaderLen+RequestHeaderLen {
		return hdr, nil, fmt.Errorf("%w: service request of %d bytes, shorter than the 4-byte encapsulation and 16-byte request header", cdr.ErrShort, len(b))
	}
	copy(hdr[:], b[cdr.HeaderLen:])
	body = append(append(make([]byte, 0, len(b)-RequestHeaderLen), b[:cdr.HeaderLen]...), b[cdr.HeaderLen+RequestHeaderLen:]...)
	return hdr, body, nil
}

// RequestID is the header's (client id, sequence number), for logs.
func RequestID(hdr [RequestHeaderLen]byte) (client uint64, seq int64) {
	return binary.LittleEndian.Uint64(hdr[:8]), int64(binary.LittleEndian.Uint64(hdr[8:]))
}

// Reply writes a response with the request's header. The header is copied as sent: a big-endian client
// gets its own bytes back, which is what rmw_cyclonedds compares.
func (s *ServiceServer) Reply(hdr [RequestHeaderLen]byte, m cdr.Marshaler) error {
	// A client that has just appeared may not be matched by the reply writer yet (its request writer matched
	// first, or its request would not be here): wait briefly, as rmw_cyclonedds does, rather than send into the
	// void. The wait is for as many reply readers as request writers: waiting for any reply reader let a reply
	// to a fresh process go to the previous client's reader still matched, and be lost (1 of 30 calls in a CI
	// run, 2026-12-02).
	for i := 0; i < 50; i++ {
		nr, err := s.rep.Matched()
		nq, qerr := s.Req.Matched()
		if err != nil || qerr != nil || (nr > 0 && nr >= nq) {
			break
		}
		_ = s.clk.Sleep(context.Background(), 2*time.Millisecond)
	}
	return s.rep.Write(joinRequest(hdr, m))
}

// joinRequest is SplitRequest's inverse, for requests and replies alike: the encapsulation header, the
// 16-byte request header, then m's body.
func joinRequest(hdr [RequestHeaderLen]byte, m cdr.Marshaler) []byte {
	w := cdr.NewWriter(nil)
	w.Octets(hdr[:])
	m.MarshalCDR(w)
	return w.Bytes()
}

// Close deletes the node and all its endpoints. Close readers that are being waited on first.
func (n *Node) Close() error { return n.p.Close() }
