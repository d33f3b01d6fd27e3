//go:build ros2 && linux && cgo

package ros2_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/stacktest"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/sros2"
	"github.com/rosorin/rosorin/ros2/sros2/sros2test"
	"github.com/rosorin/rosorin/sim"
)

// bridgeGrant is the bridge's grant as docs/ros2-security.md lists it, in DDS topic names, for the node
// /rosorin_board_driver without namespace: the test also proves that list complete (a topic it lacks stops
// the bridge at start under both strategies).
func bridgeGrant(dom int) sros2test.Policy {
	p := sros2test.Policy{Domain: dom,
		Publish: []string{"rt/imu/data_raw", "rt/battery", "rt/wheel/odom", "rt/gamepad", "rt/scan",
			"rt/rosorin_board_driver/state", "rt/rosorin_board_driver/source", "rt/rosorin_board_driver/stops", "rt/rosout", "rt/diagnostics", "rt/tf",
			"rt/tf_static", "rt/parameter_events", "ros_discovery_info"},
		Subscribe: []string{"rt/cmd_vel", "rt/manual/cmd_vel", "rt/autonomous/cmd_vel", "rt/estop"},
	}
	for _, s := range []string{"enable", "reset_estop", "list_parameters", "get_parameters", "get_parameter_types",
		"describe_parameters", "set_parameters", "set_parameters_atomically"} {
		p.Publish = append(p.Publish, "rr/rosorin_board_driver/"+s+"Reply")
		p.Subscribe = append(p.Subscribe, "rq/rosorin_board_driver/"+s+"Request")
	}
	return p
}

// teleopGrant is a teleop's: drive (rt/cmd_vel) and e-stop, read what the peers read, the graph topic both ways
// (the Fast DDS peer announces its node on it), call ~/enable and ~/reset_estop.
func teleopGrant(dom int) sros2test.Policy {
	return sros2test.Policy{Domain: dom,
		Publish: []string{"rt/cmd_vel", "rt/estop", "ros_discovery_info",
			"rq/rosorin_board_driver/enableRequest", "rq/rosorin_board_driver/reset_estopRequest"},
		Subscribe: []string{"rt/imu/data_raw", "rt/battery", "rt/wheel/odom", "rt/gamepad", "rt/scan",
			"rt/rosorin_board_driver/state", "ros_discovery_info",
			"rr/rosorin_board_driver/enableReply", "rr/rosorin_board_driver/reset_estopReply"},
	}
}

// secureKeystore makes a keystore as `ros2 security create_keystore` and create_enclave make it (sros2test:
// Go's x509 and `openssl smime -sign`) with governance gov and the enclaves of TestSecureEndToEnd.
func secureKeystore(t *testing.T, gov sros2test.Protection, dom int) string {
	t.Helper()
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(gov))
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]sros2test.Policy{
		"/rosorin_board_driver": bridgeGrant(dom),
		"/teleop":               teleopGrant(dom),
		"/fast_teleop":          teleopGrant(dom),
		// Enrolled (a certificate of the keystore's CA, signed permissions) but granted only the graph topic: it
		// may neither drive nor read the robot's topics. Its reading ros_discovery_info shows it authenticated.
		"/nogrant": {Domain: dom, Subscribe: []string{"ros_discovery_info"}, Publish: []string{"rt/chatter"}},
	} {
		if _, err := ks.Enclave(name, p, sros2test.EnclaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return ks.Dir
}

// securityEnv is the SROS2 environment of a node in enclave of keystore ks (Enforce).
func securityEnv(ks, enclave string) []string {
	env := []string{sros2.EnvEnable + "=true", sros2.EnvStrategy + "=Enforce", sros2.EnvKeystore + "=" + ks}
	if enclave != "" {
		env = append(env, sros2.EnvEnclaveOverride+"="+enclave)
	}
	return env
}

// wireMarkers are payloads of the bridge's topics that a capture must not find in plain text under
// encryption: the IMU's frame id (every sensor_msgs/Imu, ~110 Hz) and the start of ~/state's JSON.
var wireMarkers = []string{"imu_link", `{"stamp"`}

// domainCapture counts, on the loopback interface (an AF_PACKET socket: root or CAP_NET_RAW), the UDP frames
// to or from the ports of one DDS domain (7400 + 250*domain and the 250 above: discovery and user traffic of
// Cyclone and Fast DDS alike) and those of them that hold each marker. Frames of other domains (other tests on
// the machine) are counted apart and not searched. Counts only: a minute of a robot's traffic is not kept.
type domainCapture struct {
	fd                    int
	lo, hi                int
	mu                    sync.Mutex
	frames, bytes, others int
	marked                map[string]int
	stopc                 chan struct{}
	done                  chan struct{}
}

func startDomainCapture(domain int) (*domainCapture, error) {
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW, int(htons(syscall.ETH_P_ALL)))
	if err != nil {
		return nil, err
	}
	lo, err := net.InterfaceByName("lo")
	if err == nil {
		err = syscall.Bind(fd, &syscall.SockaddrLinklayer{Protocol: htons(syscall.ETH_P_ALL), Ifindex: lo.Index})
	}
	if err == nil {
		tv := syscall.NsecToTimeval(int64(50 * time.Millisecond))
		err = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, err
	}
	base := 7400 + 250*domain
	c := &domainCapture{fd: fd, lo: base, hi: base + 250, marked: map[string]int{}, stopc: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func (c *domainCapture) run() {
	defer close(c.done)
	buf := make([]byte, 65536+64)
	for {
		select {
		case <-c.stopc:
			return
		default:
		}
		n, _, err := syscall.Recvfrom(c.fd, buf, 0)
		if err != nil || n <= 0 {
			continue
		}
		f := buf[:n]
		ours := c.inDomain(f)
		c.mu.Lock()
		if !ours {
			c.others++
		} else {
			c.frames++
			c.bytes += n
			for _, m := range wireMarkers {
				if bytes.Contains(f, []byte(m)) {
					c.marked[m]++
				}
			}
		}
		c.mu.Unlock()
	}
}

// inDomain: an IPv4 UDP frame (lo's 14-byte Ethernet header) whose source or destination port is the domain's.
func (c *domainCapture) inDomain(f []byte) bool {
	if len(f) < 14+20+8 || binary.BigEndian.Uint16(f[12:14]) != 0x0800 || f[14+9] != syscall.IPPROTO_UDP {
		return false
	}
	ihl := int(f[14]&0x0f) * 4
	if len(f) < 14+ihl+8 {
		return false
	}
	src, dst := int(binary.BigEndian.Uint16(f[14+ihl:])), int(binary.BigEndian.Uint16(f[14+ihl+2:]))
	return (src >= c.lo && src < c.hi) || (dst >= c.lo && dst < c.hi)
}

// stop ends the capture; it returns the domain's frames and bytes, the other frames, and the frames holding
// each marker.
func (c *domainCapture) stop() (frames, nbytes, others int, marked map[string]int) {
	close(c.stopc)
	<-c.done
	syscall.Close(c.fd)
	return c.frames, c.bytes, c.others, c.marked
}

// needSROS2 skips (or, with ROSORIN_REQUIRE_CYCLONE=1, fails) without openssl or Cyclone's security plugins.
func needSROS2(t *testing.T) {
	t.Helper()
	why := ""
	if !sros2test.HaveOpenSSL() {
		why = "openssl is not on $PATH (apt-get install openssl)"
	} else if pl := sros2.DefaultPlugins(); !strings.HasPrefix(pl.Auth, "/") {
		why = "Cyclone's security plugins (libdds_security_auth.so ...) are not in libddsc0debian's directory; set ROSORIN_DDS_SECURITY_PLUGINS"
	}
	if why == "" {
		return
	}
	if os.Getenv("ROSORIN_REQUIRE_CYCLONE") == "1" {
		t.Fatal("required (ROSORIN_REQUIRE_CYCLONE=1): " + why)
	}
	t.Skip(why)
}

// canCapture is "" when this process may capture on lo (AF_PACKET: root or CAP_NET_RAW), else why not. As
// root with ROSORIN_REQUIRE_CYCLONE=1 (CI) a failure fails the test: root can.
func canCapture(t *testing.T) string {
	t.Helper()
	c, err := startDomainCapture(0)
	if err == nil {
		c.stop()
		return ""
	}
	if os.Getenv("ROSORIN_REQUIRE_CYCLONE") == "1" && os.Geteuid() == 0 {
		t.Fatalf("capture on lo as root: %v", err)
	}
	return fmt.Sprintf("cannot capture loopback traffic (AF_PACKET needs root or CAP_NET_RAW): %v", err)
}

// startSecureRobot starts a simulated robot and `rosorin-base run --ros2 --ros-args --enclave
// /rosorin_board_driver` with the SROS2 variables of keystore ks (Enforce, no override: --enclave selects the
// enclave), enabled, and waits for the bridge's line that it runs secured.
func startSecureRobot(t *testing.T, base, ks string) *stacktest.Stack {
	t.Helper()
	st := stacktest.NewSim(t, sim.Config{World: "stand", Seed: 1}, stacktest.Options{Bin: base, Config: stacktest.RobotConfig,
		Env: append(os.Environ(), securityEnv(ks, "")...),
		// The stand: every spin looks like a contact; the reflex would latch the e-stop under the test.
		Args: []string{"--ros2", "--contact", "log", "--ros-args", "--enclave", "/rosorin_board_driver"}})
	want := "ROS 2 with DDS security (SROS2): enclave /rosorin_board_driver of keystore " + ks + ", ROS_SECURITY_STRATEGY=Enforce"
	if err := testkit.Eventually(testkit.Bound(15*time.Second), func() error {
		if !strings.Contains(st.Log.String(), want) {
			return fmt.Errorf("no %q in the service's log", want)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.Log.String(), "ROS 2 without DDS security") {
		t.Errorf("a secured bridge logged the unsecured start-up warning")
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(5*time.Second))
	defer cancel()
	if _, err := st.Client.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if rep, err := st.Client.Enable(ctx, true); err != nil || !rep.Success {
		t.Fatalf("enable: %+v %v", rep, err)
	}
	return st
}

// driveUntilMoving sends twists from p until the sim's truth shows the wheels turning (false after d).
func driveUntilMoving(t *testing.T, st *stacktest.Stack, p *peer, d time.Duration) (time.Duration, bool) {
	start := time.Now()
	for deadline := start.Add(testkit.Bound(d)); time.Now().Before(deadline); time.Sleep(30 * time.Millisecond) {
		p.send(t, "twist 0.1 0 0")
		if maxAbs(st.Sim.Truth().WheelRPS) > stillRPS {
			return time.Since(start), true
		}
	}
	return time.Since(start), false
}

// waitStill waits until the wheels stand still again (the deadman after the last twist).
func waitStill(t *testing.T, st *stacktest.Stack) {
	t.Helper()
	if err := testkit.Eventually(testkit.Bound(3*time.Second), func() error {
		if tr := st.Sim.Truth(); maxAbs(tr.WheelRPS) > stillRPS || tr.TargetRPS != [4]float64{} {
			return fmt.Errorf("wheels %v target %v", tr.WheelRPS, tr.TargetRPS)
		}
		return nil
	}); err != nil {
		t.Fatalf("the wheels did not stop after the twists ended: %v", err)
	}
}

// TestSecureEndToEnd: the robot's bridge secured with SROS2 as a ROS 2 user sets it up (a keystore as
// `ros2 security` makes it, ROS_SECURITY_ENABLE=true, Enforce, the enclave chosen by `--ros-args --enclave`
// through `rosorin-base run --ros2`), a simulated robot, and four peers, each its own process on loopback:
//   - a Cyclone peer without a certificate (unsecured, as a node without ROS_SECURITY_ENABLE) and an enrolled
//     Cyclone peer whose grant lacks rt/cmd_vel (and the robot's topics) send twists for 3 s: the sim's truth
//     shows no wheel ever commanded, the bridge sees no publisher, and neither peer receives IMU, odometry or
//     state; the enrolled one reads the node's entry on ros_discovery_info (it did authenticate: what stops it
//     is its permissions, refused by its own Cyclone: "refused writer rt/cmd_vel");
//   - an enrolled Cyclone teleop and an enrolled Fast DDS teleop (rmw_fastrtps' security properties, Fast DDS
//     2.9's builtin plugins), both granted rt/cmd_vel, each receive the IMU and the state and drive the wheels
//     (the positive controls: the same twists, the same truth);
//   - an AF_PACKET capture on lo during the whole run holds neither the IMU's frame id nor the state's JSON in
//     any frame of the domain (SROS2's default governance: ENCRYPT); the same capture with a sign-only
//     governance (the control, a second robot) finds them.
func TestSecureEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two simulated robots with a secured bridge, Cyclone and Fast DDS peers")
	}
	needSROS2(t)
	began := time.Now()
	dom := loopbackEnv(t)
	base := buildTagged(t)
	cpeer := buildPeer(t)
	fastBin, fastWhy := "", ""
	t.Run("build-fastpeer", func(t *testing.T) {
		// A subtest: without fastddsgen only the Fast DDS half is skipped (unless ROSORIN_REQUIRE_FASTDDS=1).
		fastBin = buildFastPeer(t)
	})
	if fastBin == "" {
		fastWhy = "the Fast DDS peer was not built (see build-fastpeer)"
	}
	ks := secureKeystore(t, sros2test.SROS2Default, dom)
	// Without the right to capture the wire checks are skipped, not the drive checks.
	noCapture := canCapture(t)
	var capt *domainCapture
	if noCapture == "" {
		c, err := startDomainCapture(dom)
		if err != nil {
			t.Fatal(err)
		}
		capt = c
		defer func() {
			if capt != nil {
				capt.stop()
			}
		}()
	}
	st := startSecureRobot(t, base, ks)
	t.Logf("secured robot up in %.1f s", time.Since(began).Seconds())

	t.Run("refused", func(t *testing.T) {
		w := watchRobot(t, st)
		plain := startPeer(t, cpeer)                                   // no certificate
		nogrant := startPeerEnv(t, cpeer, securityEnv(ks, "/nogrant")) // enrolled, not granted
		plain.wait(t, 0, "ready", 10*time.Second, nil)
		nogrant.wait(t, 0, "ready", 10*time.Second, nil)
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(30 * time.Millisecond) {
			plain.send(t, "twist 0.1 0 0")
			nogrant.send(t, "twist 0.1 0 0")
		}
		w.end()
		t.Logf("while the unenrolled and the ungranted peer sent twists for 3 s: %s", w)
		if w.samples < 100 || w.maxWheel != 0 || w.maxTarget != 0 {
			t.Errorf("the wheels were driven by a peer without certificate or grant: %s", w)
		}
		if s, err := st.Client.State(context.Background()); err != nil || len(s.Publishers) != 0 || !s.Enabled || s.EStop != nil {
			t.Errorf("state after: publishers %v, enabled %v, e-stop %v (%v); want none, enabled, not latched", s.Publishers, s.Enabled, s.EStop, err)
		}
		// Cyclone 0.10 refuses the topic already (dds_create_topic checks the grant), so the writer is never made.
		if nogrant.count(0, "refused topic rt/cmd_vel ")+nogrant.count(0, "refused writer rt/cmd_vel ") != 1 {
			t.Errorf("the ungranted peer's Cyclone did not refuse its cmd_vel topic or writer:\n%s", nogrant.all())
		}
		for name, p := range map[string]*peer{"unenrolled": plain, "ungranted": nogrant} {
			for _, topic := range []string{"imu ", "odom ", "battery ", "scan ", "state ", "matched cmd_vel 1"} {
				if n := p.count(0, topic); n != 0 {
					t.Errorf("the %s peer got %d %q lines", name, n, topic)
				}
			}
		}
		// The node's entry reaches the enrolled peer (granted the graph topic): it authenticated.
		if _, ok := nogrant.waitFor(0, "node / "+ros2.NodeName+" ", 5*time.Second); !ok {
			t.Errorf("the enrolled ungranted peer did not read the node's entry on ros_discovery_info (not authenticated?):\n%s", nogrant.all())
		}
		if n := plain.count(0, "node "); n != 0 {
			t.Errorf("the unenrolled peer saw %d node entries on ros_discovery_info", n)
		}
		plain.send(t, "quit")
		nogrant.send(t, "quit")
	})

	drive := func(t *testing.T, p *peer) {
		started := time.Now()
		p.wait(t, 0, "ready", 10*time.Second, nil)
		p.wait(t, 0, "node / "+ros2.NodeName+" ", 10*time.Second, nil)
		if l := p.wait(t, 0, "imu ", 10*time.Second, nil); strings.Fields(l)[3] != "imu_link" {
			t.Errorf("imu line %q: want frame imu_link", l)
		}
		p.wait(t, 0, `state {"stamp"`, 5*time.Second, nil)
		took, ok := driveUntilMoving(t, st, p, 5*time.Second)
		if !ok {
			t.Fatalf("the enrolled teleop's twists did not turn the wheels in %v: truth %+v", took, st.Sim.Truth())
		}
		t.Logf("wheels turning %.0f ms after the first twist; truth %+v", took.Seconds()*1000, st.Sim.Truth())
		// The bridge latches the e-stop for an estop writer that comes and goes within its one-shot time (5 s)
		// without a sample reaching it (docs/ros2.md, "A one-shot e-stop"): both teleops have one, so they stay
		// longer, as a teleop does.
		time.Sleep(time.Until(started.Add(5500 * time.Millisecond)))
		p.send(t, "quit")
		waitStill(t, st)
		// The next teleop's writer would be a second publisher on cmd_vel (the two-publisher rule latches the
		// e-stop) until the bridge sees this one gone.
		left := time.Now()
		if err := testkit.Eventually(testkit.Bound(15*time.Second), func() error {
			s, err := st.Client.State(context.Background())
			if err != nil || len(s.Publishers) != 0 || s.EStop != nil {
				return fmt.Errorf("publishers %v, e-stop %v, %v", s.Publishers, s.EStop, err)
			}
			return nil
		}); err != nil {
			t.Fatalf("after the teleop quit: %v", err)
		}
		t.Logf("the bridge saw the teleop's publisher go %.0f ms after its quit", time.Since(left).Seconds()*1000)
	}
	t.Run("cyclone-teleop", func(t *testing.T) {
		drive(t, startPeerEnv(t, cpeer, securityEnv(ks, "/teleop")))
	})
	t.Run("fastdds-teleop", func(t *testing.T) {
		if fastBin == "" {
			t.Skip(fastWhy)
		}
		drive(t, startPeerEnv(t, fastBin, securityEnv(ks, "/fast_teleop")))
	})

	if capt == nil {
		t.Logf("TestSecureEndToEnd: %.1f s; the wire checks skipped: %s", time.Since(began).Seconds(), noCapture)
		return
	}
	frames, nbytes, others, marked := capt.stop()
	capt = nil
	t.Logf("encrypted run: %d frames (%d bytes) of domain %d captured on lo (%d frames of other traffic), holding %v in plain text",
		frames, nbytes, dom, others, marked)
	if frames < 500 {
		t.Errorf("only %d frames of domain %d captured: the capture did not see the run", frames, dom)
	}
	for _, m := range wireMarkers {
		if marked[m] != 0 {
			t.Errorf("%q is in %d captured frames in plain text with SROS2's default governance (ENCRYPT)", m, marked[m])
		}
	}

	t.Run("sign-only-control", func(t *testing.T) {
		// The control: the same capture sees the payloads when the governance only signs.
		st.Close()
		ks := secureKeystore(t, sros2test.SignOnly, dom)
		capt, err := startDomainCapture(dom)
		if err != nil {
			t.Fatal(err)
		}
		stopped := false
		defer func() {
			if !stopped {
				capt.stop()
			}
		}()
		st := startSecureRobot(t, base, ks)
		p := startPeerEnv(t, cpeer, securityEnv(ks, "/teleop"))
		p.wait(t, 0, `state {"stamp"`, 10*time.Second, nil)
		p.wait(t, 0, "imu ", 10*time.Second, nil)
		m := p.mark()
		time.Sleep(time.Second)
		got := p.count(m, "imu ")
		p.send(t, "quit")
		frames, nbytes, others, marked := capt.stop()
		stopped = true
		st.Close()
		t.Logf("sign-only run: %d frames (%d bytes) of domain %d (%d other), holding %v in plain text; the teleop got %d IMU messages in 1 s",
			frames, nbytes, dom, others, marked, got)
		for _, mk := range wireMarkers {
			if marked[mk] == 0 {
				t.Errorf("%q in no captured frame with a sign-only governance: the capture does not see the payloads (so it proves nothing)", mk)
			}
		}
	})
	t.Logf("TestSecureEndToEnd: %.1f s", time.Since(began).Seconds())
}

// TestSecureNodeEnclaveArg: the node's --enclave argument (NodeOptions.Enclave, which rosorin-ros2 --enclave
// and `run --ros-args --enclave` set) selects the enclave; ROS_SECURITY_ENCLAVE_OVERRIDE wins over it, as in rcl
// (an override naming an enclave the keystore lacks refuses the node under Enforce, although --enclave names a
// good one); under Permissive that fallback's WARN goes to the logger the node is given (the bridge's), not
// slog's default. The start-up line of a secured bridge names its enclave, keystore and strategy.
func TestSecureNodeEnclaveArg(t *testing.T) {
	needSROS2(t)
	dom := loopbackEnv(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/robot", sros2test.Policy{Domain: dom, Publish: []string{"ros_discovery_info"}}, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, kv := range securityEnv(ks.Dir, "") {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv(sros2.EnvEnclaveOverride, "")
	n, err := ros2.NewNodeWith(dom, "", "enclave_arg", ros2.NodeOptions{Enclave: "/robot"})
	if err != nil {
		t.Fatalf("Enforce with --enclave /robot: %v", err)
	}
	sec := n.Security()
	n.Close()
	if !sec.Secured || sec.Enclave != "/robot" || sec.Keystore != ks.Dir || sec.Strategy != sros2.Enforce {
		t.Errorf("security %+v; want secured in /robot of %s, Enforce", sec, ks.Dir)
	}
	line := ros2.GraphAccessSecured(dom, sec, false, true)
	for _, says := range []string{"with DDS security (SROS2): enclave /robot of keystore " + ks.Dir, "ROS_SECURITY_STRATEGY=Enforce",
		"signed permissions grant", "~/enable true (turn motion on) from a granted caller: refused (allow_graph_enable false)"} {
		if !strings.Contains(line, says) {
			t.Errorf("start-up line lacks %q: %s", says, line)
		}
	}

	t.Setenv(sros2.EnvEnclaveOverride, "/missing")
	if n, err := ros2.NewNodeWith(dom, "", "enclave_arg", ros2.NodeOptions{Enclave: "/robot"}); err == nil {
		n.Close()
		t.Fatal("Enforce, --enclave /robot, ROS_SECURITY_ENCLAVE_OVERRIDE=/missing: the node came up; the override must win")
	} else if !strings.Contains(err.Error(), "/missing") {
		t.Errorf("the refusal does not name the override's enclave: %v", err)
	}

	t.Setenv(sros2.EnvStrategy, "Permissive")
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	n, err = ros2.NewNodeWith(dom, "", "enclave_arg", ros2.NodeOptions{Enclave: "/robot", Log: log})
	if err != nil {
		t.Fatalf("Permissive with a missing enclave: %v", err)
	}
	sec = n.Security()
	n.Close()
	if sec.Secured {
		t.Errorf("Permissive with a missing enclave: secured %+v", sec)
	}
	if !strings.Contains(buf.String(), "level=WARN") || !strings.Contains(buf.String(), "WITHOUT security") {
		t.Errorf("the Permissive fallback did not warn on the node's logger: %q", buf.String())
	}
}
