//go:build ros2 && linux && cgo

package dds

/*
#cgo LDFLAGS: -lddsc
#include <stdlib.h>
#include "rosorin_dds.h"
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Available reports whether this binary has the Cyclone DDS layer (built with the ros2 tag).
func Available() bool { return true }

// BuiltVersion is the Cyclone DDS release of the headers this package was compiled against (dds/version.h).
var BuiltVersion = C.GoString(C.rs_built_version())

// The bitfields' places in 0.10.2 (rs_bitfields).
const (
	catchUpByte, catchUpMask     = 240, 0x02
	heartbeatByte, heartbeatMask = 300, 0x02
)

// internals is nil when the libddsc loaded at run time is the release this package was compiled against
// and the internal bitfields are where that release has them; else why not. Checked once, when the package
// loads (init). While it is not nil, Progress returns it and QoS.CatchUp is not applied.
var internals atomic.Pointer[error]

func init() { setInternals(checkInternals()) }

func setInternals(err error) { internals.Store(&err) }

// Internals says whether the reader internals this package uses (QoS.CatchUp, Progress) are on: nil, or
// why they are off (the library loaded at run time is not the release the package was built against). A
// bridge says it at ERROR and in /diagnostics.
func Internals() error { return *internals.Load() }

// SetInternalsForTest turns the internals off with err (nil: checks them again) and returns a function that
// restores the previous state. For tests.
func SetInternalsForTest(err error) (restore func()) {
	prev := internals.Load()
	if err == nil {
		err = checkInternals()
	}
	setInternals(err)
	return func() { internals.Store(prev) }
}

// TestRuntimeLibraryEnv, for tests only, names the libddsc path the load-time check takes for the loaded
// library's (TestObsInternalsOff: a bridge that sees another release turns its internals off).
const TestRuntimeLibraryEnv = "ROSORIN_TEST_DDSC_PATH"

func checkInternals() error {
	var buf [4096]C.char
	path := ""
	if C.rs_ddsc_path(&buf[0], C.size_t(len(buf))) == 0 {
		path = C.GoString(&buf[0])
	}
	if p := os.Getenv(TestRuntimeLibraryEnv); p != "" {
		path = p // tests: a bridge process that believes another libddsc is loaded
	}
	if err := CheckRuntimeVersion(BuiltVersion, path); err != nil {
		return err
	}
	if C.rs_layout_checked() == 0 {
		return fmt.Errorf("the layout of Cyclone %s's internal structs is checked for x86_64 only, not %s: e-stop watch and catch-up off (measure it and add the asserts in ros2/dds/rosorin_dds.c)", BuiltVersion, runtime.GOARCH)
	}
	var rb, rm, pb, pm C.int
	if C.rs_bitfields(&rb, &rm, &pb, &pm) != 0 || rb != catchUpByte || rm != catchUpMask || pb != heartbeatByte || pm != heartbeatMask {
		return fmt.Errorf("Cyclone's internal bitfields moved (handle_as_transient_local at byte %d mask %#x, have_seen_heartbeat at byte %d mask %#x; 0.10.2: %d %#x, %d %#x): e-stop watch and catch-up off",
			rb, rm, pb, pm, catchUpByte, catchUpMask, heartbeatByte, heartbeatMask)
	}
	return nil
}

// CheckRuntimeVersion compares the release in the file name of the libddsc loaded at run time (path, its
// real path: libddsc.so.0.10.2) with built. Anything else, a name without a release included, is an error
// that says what to do.
func CheckRuntimeVersion(built, path string) error {
	if path == "" {
		return fmt.Errorf("cannot find the loaded libddsc, so its release is unknown (built against Cyclone DDS %s): e-stop watch and catch-up off", built)
	}
	base := filepath.Base(path)
	const prefix = "libddsc.so."
	v, ok := "", len(base) > len(prefix) && base[:len(prefix)] == prefix
	if ok {
		v = base[len(prefix):]
	}
	if !ok || !isRelease(v) {
		return fmt.Errorf("the loaded libddsc (%s) does not name its release; built against Cyclone DDS %s: e-stop watch and catch-up off", path, built)
	}
	if v != built {
		return fmt.Errorf("the loaded libddsc is Cyclone DDS %s (%s), this binary was built against %s, whose internal structs it reads: e-stop watch and catch-up off; rebuild rosorin-ros2 against the installed cyclonedds-dev (and re-check ros2/dds/rosorin_dds.c)", v, path, built)
	}
	return nil
}

// isRelease: digits.digits.digits.
func isRelease(v string) bool {
	parts, n := 0, 0
	for i := 0; i <= len(v); i++ {
		if i == len(v) || v[i] == '.' {
			if n == 0 {
				return false
			}
			parts, n = parts+1, 0
			continue
		}
		if v[i] < '0' || v[i] > '9' {
			return false
		}
		n++
	}
	return parts == 3
}

type ddsError struct {
	op string
	rc C.dds_return_t
}

func (e *ddsError) Error() string {
	return fmt.Sprintf("dds: %s: %s", e.op, C.GoString(C.dds_strretcode(e.rc)))
}

func check(op string, rc C.dds_return_t) error {
	if rc < 0 {
		return &ddsError{op, rc}
	}
	return nil
}

// Participant is a DDS domain participant.
type Participant struct {
	mu     sync.Mutex
	pp     C.dds_entity_t
	topics map[string]topic
	closed bool
}

type topic struct {
	e  C.dds_entity_t
	st *C.struct_ddsi_sertype
}

// NewParticipant joins domain (ROS_DOMAIN_ID) with the participant user data ("enclave=/;" for ROS 2).
// ROS_LOCALHOST_ONLY=1 in the environment creates the domain with the loopback interface prepended to
// CYCLONEDDS_URI, as rmw_cyclonedds does.
func NewParticipant(domain int, userData string) (*Participant, error) {
	if domain < 0 || domain > 232 {
		return nil, fmt.Errorf("dds: domain id %d out of 0..232 (ROS_DOMAIN_ID)", domain)
	}
	if os.Getenv("ROS_LOCALHOST_ONLY") == "1" {
		cfg := `<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces></General></Domain></CycloneDDS>`
		if u := os.Getenv("CYCLONEDDS_URI"); u != "" {
			cfg += "," + u
		}
		cs := C.CString(cfg)
		d := C.dds_create_domain(C.dds_domainid_t(domain), cs)
		C.free(unsafe.Pointer(cs))
		// PRECONDITION_NOT_MET: the domain exists already in this process (a second participant).
		if d < 0 && d != C.DDS_RETCODE_PRECONDITION_NOT_MET {
			return nil, check("create domain (ROS_LOCALHOST_ONLY=1)", C.dds_return_t(d))
		}
	}
	ud := []byte(userData)
	pp := C.rs_participant(C.dds_domainid_t(domain), cbytes(ud), C.size_t(len(ud)))
	if err := check("create participant", C.dds_return_t(pp)); err != nil {
		return nil, fmt.Errorf("%w (CYCLONEDDS_URI=%q)", err, os.Getenv("CYCLONEDDS_URI"))
	}
	return &Participant{pp: pp, topics: map[string]topic{}}, nil
}

func cbytes(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func guidOf(e C.dds_entity_t) (GUID, error) {
	var g GUID
	err := check("get guid", C.dds_return_t(C.rs_guid(e, (*C.uchar)(unsafe.Pointer(&g[0])))))
	return g, err
}

// GUID is the participant's GUID.
func (p *Participant) GUID() GUID { g, _ := guidOf(p.pp); return g }

func (p *Participant) topic(name, typeName string) (topic, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return topic{}, fmt.Errorf("dds: participant closed")
	}
	if t, ok := p.topics[name]; ok {
		return t, nil
	}
	cn, ct := C.CString(name), C.CString(typeName)
	defer C.free(unsafe.Pointer(cn))
	defer C.free(unsafe.Pointer(ct))
	var st *C.struct_ddsi_sertype
	e := C.rs_topic(p.pp, cn, ct, &st)
	if err := check("create topic "+name+" ("+typeName+")", C.dds_return_t(e)); err != nil {
		return topic{}, err
	}
	t := topic{e: e, st: st}
	p.topics[name] = t
	return t, nil
}

// Writer writes serialized samples on one topic.
type Writer struct {
	e  C.dds_entity_t
	st *C.struct_ddsi_sertype
}

// NewWriter creates a writer of topic (the DDS name, "rt/cmd_vel") with type typeName, QoS q and endpoint
// user data (rmw_cyclonedds' "serviceid=...;" on a service's endpoints, else empty).
func (p *Participant) NewWriter(topicName, typeName string, q QoS, userData string) (*Writer, error) {
	t, err := p.topic(topicName, typeName)
	if err != nil {
		return nil, err
	}
	ud := []byte(userData)
	e := C.rs_writer(p.pp, t.e, b2i(q.Reliable), b2i(q.TransientLocal), C.int(q.Depth), cbytes(ud), C.size_t(len(ud)), C.int64_t(q.Lifespan))
	if err := check("create writer on "+topicName, C.dds_return_t(e)); err != nil {
		return nil, err
	}
	return &Writer{e: e, st: t.st}, nil
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Write sends one serialized sample (header included).
func (w *Writer) Write(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("dds: empty sample")
	}
	return check("write", C.rs_write(w.e, w.st, unsafe.Pointer(&b[0]), C.size_t(len(b))))
}

// GUID is the writer's GUID.
func (w *Writer) GUID() GUID { g, _ := guidOf(w.e); return g }

// Handle is the writer's instance handle: what a reader sees as Sample.Writer, and what rmw_cyclonedds puts
// in a service request's header as the client's id.
func (w *Writer) Handle() uint64 { return uint64(C.rs_handle(w.e)) }

// Matched is the number of readers matched now.
func (w *Writer) Matched() (int, error) {
	n := C.rs_sub_matched(w.e)
	return int(n), check("publication matched status", C.dds_return_t(n))
}

// Reader takes serialized samples of one topic.
type Reader struct {
	e, ws, guard C.dds_entity_t
	st           *C.struct_ddsi_sertype
	waitMu       sync.Mutex // held while waiting, so Close deletes nothing under a waiter
	mu           sync.Mutex
	closed       bool
	bufs         [C.RS_MAX_TAKE]*C.struct_ddsi_serdata
	taken        [C.RS_MAX_TAKE]C.rs_taken
}

// NewReader creates a reader of topic with type typeName, QoS q and endpoint user data.
func (p *Participant) NewReader(topicName, typeName string, q QoS, userData string) (*Reader, error) {
	t, err := p.topic(topicName, typeName)
	if err != nil {
		return nil, err
	}
	ud := []byte(userData)
	e := C.rs_reader(p.pp, t.e, b2i(q.Reliable), b2i(q.TransientLocal), C.int(q.Depth), cbytes(ud), C.size_t(len(ud)))
	if err := check("create reader on "+topicName, C.dds_return_t(e)); err != nil {
		return nil, err
	}
	r := &Reader{e: e, st: t.st}
	// With the internals off (Internals), the reader starts new non-Cyclone writers the library's way.
	if q.CatchUp && q.Reliable && !q.TransientLocal && Internals() == nil {
		if C.rs_catch_up(e, t.st) != 0 {
			C.dds_delete(e)
			return nil, fmt.Errorf("dds: reader on %s: cannot make it catch up with new writers (Cyclone internals not as expected)", topicName)
		}
	}
	r.ws = C.rs_waiter(p.pp, e, &r.guard)
	if err := check("create waitset", C.dds_return_t(r.ws)); err != nil {
		C.dds_delete(e)
		return nil, err
	}
	return r, nil
}

// GUID is the reader's GUID.
func (r *Reader) GUID() GUID { g, _ := guidOf(r.e); return g }

// Matched is the number of writers matched now (for the two-publisher rule on cmd_vel).
func (r *Reader) Matched() (int, error) {
	n := C.rs_pub_matched(r.e)
	return int(n), check("subscription matched status", C.dds_return_t(n))
}

// Progress appends, for every writer matched now, the highest sequence number it has announced by
// heartbeat (0 before its first) and the next one this reader waits for (Cyclone's reliable-protocol state,
// which its public API does not show).
// Announced >= Next means the writer has said it wrote samples this reader has not received yet, and that
// the writer has not declared not meant for it (volatile writers answer a GAP for what they wrote before
// they matched this reader). Only reliable writers announce by heartbeat; a best-effort writer's samples
// are only known when they arrive.
func (r *Reader) Progress(dst []WriterProgress) ([]WriterProgress, error) {
	if err := Internals(); err != nil {
		return dst, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hs, err := r.matchedLocked()
	for _, h := range hs {
		var ann, next C.int64_t
		switch C.rs_progress(r.e, r.st, h, &ann, &next) {
		case 1:
			dst = append(dst, WriterProgress{Writer: uint64(h), Announced: int64(ann), Next: int64(next), Known: true})
		case 0: // gone between the two calls
		default:
			dst = append(dst, WriterProgress{Writer: uint64(h)})
		}
	}
	return dst, err
}

// CatchingUp reports whether the reader starts new writers as a transient-local reader does (QoS.CatchUp
// applied: Cyclone's handle_as_transient_local, read back).
func (r *Reader) CatchingUp() (bool, error) {
	if err := Internals(); err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false, fmt.Errorf("dds: reader closed")
	}
	switch C.rs_is_catch_up(r.e, r.st) {
	case 1:
		return true, nil
	case 0:
		return false, nil
	}
	return false, fmt.Errorf("dds: the reader's internal state cannot be read")
}

// MatchedWriters appends the publication handles of the writers matched now.
func (r *Reader) MatchedWriters(dst []uint64) ([]uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	hs, err := r.matchedLocked()
	for _, h := range hs {
		dst = append(dst, uint64(h))
	}
	return dst, err
}

// matchedLocked lists the publication handles matched now (at most 64); r.mu is held.
func (r *Reader) matchedLocked() ([]C.dds_instance_handle_t, error) {
	if r.closed {
		return nil, fmt.Errorf("dds: reader closed")
	}
	var hs [64]C.dds_instance_handle_t
	n := C.rs_matched(r.e, &hs[0], C.size_t(len(hs)))
	if n < 0 {
		return nil, check("matched publications", C.dds_return_t(n))
	}
	return hs[:min(int(n), len(hs))], nil
}

// FillAllocations is for tests: from now on every sample buffer this process allocates is 16 bytes larger
// than asked and filled with pattern first, as stale heap data would be, so that bytes sent without being
// written on purpose show on the wire. A negative pattern turns it off.
func FillAllocations(pattern int) { C.rs_set_fill(C.int(pattern)) }

// Wait blocks until data may be available, Wake is called, or timeout passes (false, nil). A closed reader
// returns an error.
func (r *Reader) Wait(timeout time.Duration) (bool, error) {
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return false, fmt.Errorf("dds: reader closed")
	}
	n := C.rs_wait(r.ws, r.guard, C.int64_t(timeout.Nanoseconds()))
	return n > 0, check("wait", n)
}

// Wake makes a pending Wait return.
func (r *Reader) Wake() { C.dds_set_guardcondition(r.guard, true) }

// Take appends every sample available now (valid data only) to dst.
func (r *Reader) Take(dst []Sample) ([]Sample, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return dst, fmt.Errorf("dds: reader closed")
	}
	for {
		n := C.rs_take(r.e, &r.bufs[0], &r.taken[0])
		if n < 0 {
			return dst, check("take", C.dds_return_t(n))
		}
		for i := 0; i < int(n); i++ {
			tk := &r.taken[i]
			if tk.valid == 0 {
				continue
			}
			dst = append(dst, Sample{
				Data:       C.GoBytes(unsafe.Pointer(tk.data), C.int(tk.size)),
				Writer:     uint64(tk.writer),
				SourceTime: time.Unix(0, int64(tk.source)),
			})
		}
		C.rs_release(&r.bufs[0], n)
		if n < C.RS_MAX_TAKE {
			return dst, nil
		}
	}
}

// Close deletes the reader (a pending Wait returns first).
func (r *Reader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.mu.Unlock()
	r.Wake()
	r.waitMu.Lock()
	defer r.waitMu.Unlock()
	C.dds_delete(r.ws)
	return check("delete reader", C.dds_delete(r.e))
}

// Close deletes the participant and everything it created. Close every Reader first (a Wait in progress
// would otherwise see its waitset deleted under it).
func (p *Participant) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	return check("delete participant", C.dds_delete(p.pp))
}

// Close deletes the writer.
func (w *Writer) Close() error { return check("delete writer", C.dds_delete(w.e)) }
