//go:build ros2 && linux && cgo

package dds_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/protocol/rosmsg"
	"github.com/rosorin/rosorin/ros2"
	"github.com/rosorin/rosorin/ros2/dds"
	"github.com/rosorin/rosorin/ros2/sros2"
	"github.com/rosorin/rosorin/ros2/sros2/sros2test"
)

// The security tests run each participant in a process of its own (this test binary, TestSecurityProcess),
// as on a real graph: Cyclone loads the security plugins once per domain and process, and two participants of
// one process would also meet through the local shortcut rather than the wire.

const secType = "std_msgs::msg::dds_::String_"

// needSecurity skips without openssl or Cyclone's security plugins, unless ROSORIN_REQUIRE_CYCLONE=1.
func needSecurity(t *testing.T) sros2.Plugins {
	t.Helper()
	pl := sros2.DefaultPlugins()
	why := ""
	if !sros2test.HaveOpenSSL() {
		why = "openssl is not on $PATH (apt-get install openssl)"
	} else if !filepath.IsAbs(pl.Auth) {
		why = "Cyclone's security plugins (libdds_security_auth.so ...) are not in libddsc0debian's directory; set ROSORIN_DDS_SECURITY_PLUGINS"
	}
	if why == "" {
		return pl
	}
	if os.Getenv("ROSORIN_REQUIRE_CYCLONE") == "1" {
		t.Fatal("required (ROSORIN_REQUIRE_CYCLONE=1): " + why)
	}
	t.Skip(why)
	return pl
}

// secProc is one participant in a child process: its stdout lines, parsed.
type secProc struct {
	name   string
	cmd    *exec.Cmd
	mu     sync.Mutex
	got    map[string]int // payload -> samples received
	lines  []string
	done   chan struct{}
	stderr syncBuf
}

// syncBuf is a strings.Builder that exec's stderr copier writes while the test reads it.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (p *secProc) count(payload string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.got[payload]
}

// containing is the number of samples received that contain marker.
func (p *secProc) containing(marker string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for s, k := range p.got {
		if strings.Contains(s, marker) {
			n += k
		}
	}
	return n
}

func (p *secProc) has(prefix string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func (p *secProc) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%s: lines %q, got %v, stderr %q", p.name, p.lines, p.got, p.stderr.String())
}

// startSec starts a participant process. role "pub" writes payload on topic every 20 ms; "sub" reads topic and
// prints what it gets. enclave "" makes an unsecured participant; keystore is where enclave is.
func startSec(t *testing.T, ctx context.Context, name, role, keystore, enclave, topic, payload string, d time.Duration, env ...string) *secProc {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSecurityProcess$")
	// env last: it overrides the defaults (exec keeps the last of duplicate keys).
	cmd.Env = append(append(os.Environ(), "ROSORIN_SEC_ROLE="+role, "ROSORIN_SEC_KEYSTORE="+keystore, "ROSORIN_SEC_ENCLAVE="+enclave,
		"ROSORIN_SEC_TOPIC="+topic, "ROSORIN_SEC_PAYLOAD="+payload, "ROSORIN_SEC_FOR="+d.String(),
		"ROSORIN_SEC_DOMAIN="+strconv.Itoa(testDomain())), env...)
	p := &secProc{name: name, cmd: cmd, got: map[string]int{}, done: make(chan struct{})}
	cmd.Stderr = &p.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			l := sc.Text()
			p.mu.Lock()
			if s, ok := strings.CutPrefix(l, "GOT "); ok {
				if u, err := strconv.Unquote(s); err == nil {
					s = u
				}
				p.got[s]++
			} else {
				p.lines = append(p.lines, l)
			}
			p.mu.Unlock()
		}
		io.Copy(io.Discard, out)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
		cmd.Wait()
	})
	return p
}

func (p *secProc) wait(t *testing.T) {
	t.Helper()
	<-p.done
	p.cmd.Wait()
}

// TestSecurityProcess is a participant for the security tests, in a child process (skipped otherwise).
func TestSecurityProcess(t *testing.T) {
	role := os.Getenv("ROSORIN_SEC_ROLE")
	if role == "" {
		t.Skip("a child process of the security tests")
	}
	dom, _ := strconv.Atoi(os.Getenv("ROSORIN_SEC_DOMAIN"))
	d, _ := time.ParseDuration(os.Getenv("ROSORIN_SEC_FOR"))
	topic, payload := os.Getenv("ROSORIN_SEC_TOPIC"), os.Getenv("ROSORIN_SEC_PAYLOAD")
	if role == "node" {
		secureNodeProcess(dom, d, topic, payload)
		return
	}
	var p *dds.Participant
	var err error
	if enc := os.Getenv("ROSORIN_SEC_ENCLAVE"); enc != "" {
		e, lerr := sros2.Load(os.Getenv("ROSORIN_SEC_KEYSTORE"), enc, sros2.Options{})
		if lerr != nil {
			fmt.Println("PARTICIPANT ERR", lerr)
			return
		}
		pl := sros2.DefaultPlugins()
		lax := os.Getenv("ROSORIN_SEC_LAXAC")
		var props []dds.Property
		for _, pr := range e.Properties(pl) {
			switch {
			case lax != "" && pr.Name == sros2.PropAccessPath:
				pr.Value = lax
				os.Setenv("LAXAC_REAL", pl.Access)
			case lax != "" && pr.Name == sros2.PropAccessInit:
				pr.Value = "init_lax_access_control"
			case lax != "" && pr.Name == sros2.PropAccessFinalize:
				pr.Value = "finalize_lax_access_control"
			}
			props = append(props, dds.Property{Name: pr.Name, Value: pr.Value})
		}
		p, err = dds.NewSecureParticipant(dom, e.UserData(), props)
	} else {
		p, err = dds.NewParticipant(dom, "enclave=/;")
	}
	if err != nil {
		fmt.Println("PARTICIPANT ERR", err)
		return
	}
	defer p.Close()
	fmt.Println("PARTICIPANT OK")
	q := dds.QoS{Reliable: true, Depth: 10}
	end := time.Now().Add(d)
	switch role {
	case "pub":
		w, err := p.NewWriter(topic, secType, q, "")
		if err != nil {
			fmt.Println("WRITER ERR", err)
			return
		}
		fmt.Println("WRITER OK")
		last := -1
		for time.Now().Before(end) {
			if n, _ := w.Matched(); n != last {
				fmt.Println("MATCHED", n)
				last = n
			}
			w.Write(append([]byte{0, 1, 0, 0}, payload...))
			time.Sleep(20 * time.Millisecond)
		}
	case "sub":
		r, err := p.NewReader(topic, secType, q, "")
		if err != nil {
			fmt.Println("READER ERR", err)
			return
		}
		defer r.Close()
		fmt.Println("READER OK")
		var got []dds.Sample
		last := -1
		for time.Now().Before(end) {
			if n, _ := r.Matched(); n != last {
				fmt.Println("MATCHED", n)
				last = n
			}
			r.Wait(50 * time.Millisecond)
			if got, err = r.Take(got[:0]); err != nil {
				fmt.Println("TAKE ERR", err)
				return
			}
			for _, s := range got {
				if len(s.Data) >= 4 {
					// Cyclone pads a sample to 4 bytes with zeros (doc.go): the payload ends at the first NUL.
					fmt.Println("GOT", strconv.Quote(strings.TrimRight(string(s.Data[4:]), "\x00")))
				}
			}
		}
	}
}

// secureNodeProcess is a ros2.Node (the bridge's participant, security from the ROS_SECURITY_* environment)
// that publishes std_msgs/String payload on topic every 20 ms for d.
func secureNodeProcess(dom int, d time.Duration, topic, payload string) {
	n, err := ros2.NewNode(dom, "", "secure_talker")
	if err != nil {
		fmt.Println("NODE ERR", err)
		return
	}
	defer n.Close()
	fmt.Println("NODE OK")
	pub, err := n.Publisher(topic, "std_msgs/msg/String", dds.QoS{Reliable: true, Depth: 10})
	if err != nil {
		fmt.Println("WRITER ERR", err)
		return
	}
	fmt.Println("WRITER OK")
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		pub.Publish(&rosmsg.String{Data: payload})
	}
}

// waitFor polls cond every 20 ms until it holds or d has passed.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestSecureExchange: two participants enrolled in one SROS2 keystore exchange samples on a topic their
// permissions grant; in the same run, a participant without a certificate and one with a certificate of
// another CA (same name "sros2CA", another key) receive nothing, and an unsecured writer's samples do not
// reach the enrolled reader.
func TestSecureExchange(t *testing.T) {
	needSecurity(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	dom := testDomain()
	if _, err := ks.Enclave("/talker", sros2test.Policy{Domain: dom, Publish: []string{"rt/chatter"}}, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/listener", sros2test.Policy{Domain: dom, Subscribe: []string{"rt/chatter"}}, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	other, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Enclave("/listener", sros2test.Policy{Domain: dom, Subscribe: []string{"rt/chatter"}}, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const run = 8 * time.Second
	listener := startSec(t, ctx, "enrolled listener", "sub", ks.Dir, "/listener", "rt/chatter", "", run)
	anon := startSec(t, ctx, "listener without certificate", "sub", "", "", "rt/chatter", "", run)
	foreign := startSec(t, ctx, "listener of another CA", "sub", other.Dir, "/listener", "rt/chatter", "", run)
	talker := startSec(t, ctx, "enrolled talker", "pub", ks.Dir, "/talker", "rt/chatter", "secret from talker", run)
	rogue := startSec(t, ctx, "talker without certificate", "pub", "", "", "rt/chatter", "from rogue", run)
	if !waitFor(run, func() bool { return listener.count("secret from talker") >= 20 }) {
		t.Fatalf("the enrolled listener did not get 20 samples from the enrolled talker:\n%v\n%v", listener, talker)
	}
	time.Sleep(time.Second) // the others have had the same time and more to get something
	if n := anon.count("secret from talker"); n != 0 {
		t.Errorf("the listener without certificate got %d samples of the enrolled talker", n)
	}
	// Positive control: the listener without certificate is on the domain and reads (the unsecured writer's
	// samples reach it), it just gets nothing from the enrolled talker.
	if n := anon.count("from rogue"); n == 0 {
		t.Errorf("the listener without certificate got nothing at all, not even from the unsecured writer: %v", anon)
	}
	if n := foreign.count("secret from talker"); n != 0 || foreign.has("MATCHED 1") != "" {
		t.Errorf("the listener of another CA got %d samples (matched: %q)", n, foreign.has("MATCHED 1"))
	}
	if foreign.has("READER OK") == "" {
		t.Errorf("the listener of another CA did not start (so it proves nothing): %v", foreign)
	}
	if n := listener.count("from rogue"); n != 0 {
		t.Errorf("the enrolled listener got %d samples from the writer without certificate", n)
	}
	if rogue.has("WRITER OK") == "" {
		t.Errorf("the unsecured writer did not start (so it proves nothing): %v", rogue)
	}
	t.Logf("enrolled listener: %d samples; without certificate: %d (and %d of the unsecured writer); other CA: %d",
		listener.count("secret from talker"), anon.count("secret from talker"), anon.count("from rogue"), foreign.count("secret from talker"))
}

// TestSecurePermissions: an enrolled participant whose permissions do not grant publishing rt/cmd_vel cannot
// create the writer (Cyclone's access control refuses it), while one that is granted it drives the robot's
// reader (the positive control, same run).
func TestSecurePermissions(t *testing.T) {
	needSecurity(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	dom := testDomain()
	for name, p := range map[string]sros2test.Policy{
		"/robot":    {Domain: dom, Subscribe: []string{"rt/cmd_vel"}},
		"/teleop":   {Domain: dom, Publish: []string{"rt/cmd_vel"}},
		"/intruder": {Domain: dom, Publish: []string{"rt/chatter"}, Subscribe: []string{"rt/*"}},
	} {
		if _, err := ks.Enclave(name, p, sros2test.EnclaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const run = 8 * time.Second
	robot := startSec(t, ctx, "robot", "sub", ks.Dir, "/robot", "rt/cmd_vel", "", run)
	intruder := startSec(t, ctx, "intruder", "pub", ks.Dir, "/intruder", "rt/cmd_vel", "intruder twist", run)
	teleop := startSec(t, ctx, "teleop", "pub", ks.Dir, "/teleop", "rt/cmd_vel", "teleop twist", run)
	if !waitFor(run, func() bool { return robot.count("teleop twist") >= 20 }) {
		t.Fatalf("the robot did not get 20 twists from the granted teleop:\n%v\n%v", robot, teleop)
	}
	intruder.wait(t)
	if l := intruder.has("WRITER ERR"); !strings.Contains(strings.ToLower(l), "not allowed by security") {
		t.Errorf("the intruder's writer on rt/cmd_vel was not refused by security: %v", intruder)
	}
	if intruder.has("PARTICIPANT OK") == "" {
		t.Errorf("the intruder did not even join (so the refusal proves nothing about permissions): %v", intruder)
	}
	if n := robot.count("intruder twist"); n != 0 {
		t.Errorf("the robot got %d twists from the intruder", n)
	}
	t.Logf("intruder: %q; robot got %d teleop twists", intruder.has("WRITER ERR"), robot.count("teleop twist"))
}

// laxAC is the source of a shim of Cyclone's access-control plugin with the local writer check taken out
// (built by buildLaxAC). It stands for a participant on a modified DDS library: it creates writers its
// permissions do not grant, and everything else (its permissions token, governance, security attributes) is
// the real plugin's, so only the other side's check of the permissions it was sent can stop it.
const laxAC = `#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "dds/security/dds_security_api.h"

typedef int (*init_fn)(const char *argument, void **context, struct ddsi_domaingv *gv);
typedef int (*fini_fn)(void *context);
static void *real;

static DDS_Security_boolean lax_check_create_datawriter(dds_security_access_control *instance,
    const DDS_Security_PermissionsHandle permissions_handle, const DDS_Security_DomainId domain_id,
    const DDS_Security_char *topic_name, const DDS_Security_Qos *writer_qos,
    const DDS_Security_PartitionQosPolicy *partition, const DDS_Security_DataTags *data_tag,
    DDS_Security_SecurityException *ex)
{
  (void) instance; (void) permissions_handle; (void) domain_id; (void) topic_name; (void) writer_qos;
  (void) partition; (void) data_tag; (void) ex;
  return true;
}

int init_lax_access_control(const char *argument, void **context, struct ddsi_domaingv *gv)
{
  const char *path = getenv("LAXAC_REAL");
  if (path == NULL || (real = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    fprintf(stderr, "laxac: cannot load the real plugin (LAXAC_REAL=%s): %s\n", path ? path : "", dlerror());
    return -1;
  }
  init_fn init = (init_fn) dlsym(real, "init_access_control");
  if (init == NULL) return -1;
  int rc = init(argument, context, gv);
  if (rc == 0 && *context != NULL)
    ((dds_security_access_control *) *context)->check_create_datawriter = lax_check_create_datawriter;
  return rc;
}

int finalize_lax_access_control(void *context)
{
  fini_fn fini = (fini_fn) dlsym(real, "finalize_access_control");
  return fini ? fini(context) : -1;
}
`

// buildLaxAC compiles laxAC into a shared object with gcc.
func buildLaxAC(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src, so := filepath.Join(dir, "laxac.c"), filepath.Join(dir, "liblaxac.so")
	if err := os.WriteFile(src, []byte(laxAC), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-Wall", "-Werror", "-o", so, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("gcc laxac.c: %v: %s", err, out)
	}
	return so
}

// TestSecureRemoteCheck: the receiving side enforces the permissions too. Two participants on a modified
// access-control plugin (laxAC: no local writer check) both create a writer on rt/cmd_vel; the robot's reader
// takes the one whose permissions grant rt/cmd_vel and refuses the one whose permissions do not. The only
// difference between the two is the grant.
func TestSecureRemoteCheck(t *testing.T) {
	needSecurity(t)
	lax := buildLaxAC(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	dom := testDomain()
	for name, p := range map[string]sros2test.Policy{
		"/robot":  {Domain: dom, Subscribe: []string{"rt/cmd_vel"}},
		"/teleop": {Domain: dom, Publish: []string{"rt/cmd_vel"}},
		"/rogue":  {Domain: dom, Publish: []string{"rt/chatter"}, Subscribe: []string{"rt/*"}},
	} {
		if _, err := ks.Enclave(name, p, sros2test.EnclaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const run = 8 * time.Second
	robot := startSec(t, ctx, "robot", "sub", ks.Dir, "/robot", "rt/cmd_vel", "", run)
	teleop := startSec(t, ctx, "teleop on laxac", "pub", ks.Dir, "/teleop", "rt/cmd_vel", "teleop twist", run, "ROSORIN_SEC_LAXAC="+lax)
	rogue := startSec(t, ctx, "rogue on laxac", "pub", ks.Dir, "/rogue", "rt/cmd_vel", "rogue twist", run, "ROSORIN_SEC_LAXAC="+lax)
	if !waitFor(run, func() bool { return robot.count("teleop twist") >= 20 }) {
		t.Fatalf("the robot did not get 20 twists from the granted teleop on laxac:\n%v\n%v", robot, teleop)
	}
	time.Sleep(time.Second)
	if rogue.has("WRITER OK") == "" {
		t.Fatalf("the rogue's writer was not created (laxac did not take the local check out): %v", rogue)
	}
	if n := robot.count("rogue twist"); n != 0 {
		t.Errorf("the robot got %d twists from the rogue whose permissions do not grant rt/cmd_vel", n)
	}
	t.Logf("robot: %d teleop twists, %d rogue twists; %v; %v", robot.count("teleop twist"), robot.count("rogue twist"), rogue, robot)
}

// TestSecureNode: the bridge's node (ros2.NewNode) takes ROS 2 security from the environment as a ROS node
// does. Enforce with its enclave: an enrolled listener gets its samples, one without certificate does not.
// Enforce with an enclave the keystore lacks: NewNode refuses and says why. Permissive with that enclave: it
// runs unsecured (the listener without certificate gets its samples) and says so at WARN.
func TestSecureNode(t *testing.T) {
	needSecurity(t)
	ks, err := sros2test.Create(t.TempDir(), sros2test.GovernanceXML(sros2test.SROS2Default))
	if err != nil {
		t.Fatal(err)
	}
	dom := testDomain()
	if _, err := ks.Enclave("/robot", sros2test.Policy{Domain: dom, Publish: []string{"rt/chatter", "ros_discovery_info"}}, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ks.Enclave("/listener", sros2test.Policy{Domain: dom, Subscribe: []string{"rt/chatter"}}, sros2test.EnclaveOptions{}); err != nil {
		t.Fatal(err)
	}
	secEnv := func(strategy, enclave string) []string {
		return []string{"ROS_SECURITY_ENABLE=true", "ROS_SECURITY_STRATEGY=" + strategy, "ROS_SECURITY_KEYSTORE=" + ks.Dir,
			"ROS_SECURITY_ENCLAVE_OVERRIDE=" + enclave}
	}
	const run = 8 * time.Second

	t.Run("enforce", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		listener := startSec(t, ctx, "enrolled listener", "sub", ks.Dir, "/listener", "rt/chatter", "", run)
		anon := startSec(t, ctx, "listener without certificate", "sub", "", "", "rt/chatter", "", run)
		node := startSec(t, ctx, "node", "node", "", "", "chatter", "from the secure node", run, secEnv("Enforce", "/robot")...)
		if !waitFor(run, func() bool { return listener.containing("from the secure node") >= 20 }) {
			t.Fatalf("the enrolled listener did not get 20 samples from the node:\n%v\n%v", listener, node)
		}
		time.Sleep(time.Second)
		if n := anon.containing("from the secure node"); n != 0 {
			t.Errorf("the listener without certificate got %d samples of the secured node", n)
		}
		if anon.has("READER OK") == "" {
			t.Errorf("the listener without certificate did not start: %v", anon)
		}
	})
	t.Run("enforce, no enclave", func(t *testing.T) {
		node := startSec(t, context.Background(), "node", "node", "", "", "chatter", "x", run, secEnv("Enforce", "/missing")...)
		node.wait(t)
		if l := node.has("NODE ERR"); !strings.Contains(l, "Enforce") || !strings.Contains(l, "create_enclave") {
			t.Errorf("the node did not refuse with the reason: %v", node)
		}
	})
	t.Run("enforce, another domain", func(t *testing.T) {
		other := 230 - os.Getpid()%20 // never testDomain() (100-199): the grant is for that one only
		node := startSec(t, context.Background(), "node", "node", "", "", "chatter", "x", run,
			append(secEnv("Enforce", "/robot"), "ROSORIN_SEC_DOMAIN="+strconv.Itoa(other))...)
		node.wait(t)
		if l := node.has("NODE ERR"); !strings.Contains(l, "permissions.p7s") || !strings.Contains(l, "domain "+strconv.Itoa(other)) {
			t.Errorf("the node did not refuse naming the grant and the domain: %v", node)
		}
	})
	t.Run("permissive, no enclave", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		anon := startSec(t, ctx, "listener without certificate", "sub", "", "", "rt/chatter", "", run)
		node := startSec(t, ctx, "node", "node", "", "", "chatter", "from the permissive node", run, secEnv("Permissive", "/missing")...)
		if !waitFor(run, func() bool { return anon.containing("from the permissive node") >= 5 }) {
			t.Fatalf("the unsecured listener got nothing from the permissive node:\n%v\n%v", anon, node)
		}
		stderr := node.stderr.String()
		if !strings.Contains(stderr, "WARN") || !strings.Contains(stderr, "WITHOUT security") {
			t.Errorf("no WARN that the node runs without security: %v", node)
		}
	})
}
