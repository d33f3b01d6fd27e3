package dds

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotBuilt is returned by every constructor of a build without the ros2 tag.
var ErrNotBuilt = errors.New("ROS 2 (Cyclone DDS) support is not in this binary: build with `go build -tags ros2` (needs cyclonedds-dev and gcc: apt-get install cyclonedds-dev)")

// QoS is the part of a DDS QoS the ROS 2 profiles set. Writers use max_blocking_time 100 ms when reliable
// (rmw_cyclonedds' value), so a full history never blocks a caller longer than that.
type QoS struct {
	Reliable       bool
	TransientLocal bool
	// Depth is the KEEP_LAST history depth (0 = 1).
	Depth int
	// CatchUp (reliable volatile readers) starts every newly matched non-Cyclone writer as a
	// transient-local reader does: from the first sample the writer still holds for this reader, instead of
	// after the last sample of the writer's first heartbeat, which Cyclone 0.10.2 skips for a volatile
	// reader. Without it a Fast DDS writer's first sample that reached us before the writer was discovered
	// is lost for good, even if the writer lives to repair it (the one-shot e-stop, docs/ros2.md). Cyclone
	// writers get that start anyway. Not a QoS on the wire: matching is unchanged.
	CatchUp bool
	// Lifespan (writers; 0 = infinite) is how long a written sample stays in the writer's history for late
	// joiners (rclcpp's /rosout: 10 s).
	Lifespan time.Duration
}

// The ROS 2 profiles (rmw_qos_profile_default, _sensor_data, _services_default) and the latched profile
// (~/state, ros_discovery_info: a late joiner gets the last sample).
var (
	Default    = QoS{Reliable: true, Depth: 10}
	SensorData = QoS{Reliable: false, Depth: 5}
	Services   = QoS{Reliable: true, Depth: 10}
	Latched    = QoS{Reliable: true, TransientLocal: true, Depth: 1}
	// ServiceRequests is Services for the readers of a service's requests and replies: CatchUp, so that the
	// one request of a fresh client, or the one reply to it, is never skipped.
	ServiceRequests = QoS{Reliable: true, Depth: 10, CatchUp: true}
)

func (q QoS) String() string {
	r, d := "best-effort", "volatile"
	if q.Reliable {
		r = "reliable"
	}
	if q.TransientLocal {
		d = "transient-local"
	}
	return fmt.Sprintf("%s, %s, keep last %d", r, d, max(q.Depth, 1))
}

// WriterProgress is a matched writer's reliable-protocol state as one reader sees it (Reader.Progress).
type WriterProgress struct {
	Writer uint64 // publication handle, as Sample.Writer
	// Announced is the highest sequence number the writer has announced (heartbeat or data); Next the
	// next one the reader waits for. Announced >= Next: announced samples not received yet.
	Announced, Next int64
	Known           bool // false: the writer's state could not be read
}

// Pending is the number of announced samples the reader has neither received nor been told are not for it.
func (w WriterProgress) Pending() int64 { return max(0, w.Announced-w.Next+1) }

// GUID is a DDS entity's 16-byte GUID (prefix and entity id).
type GUID [16]byte

// Sample is one taken sample: its serialized bytes (header included, copied), the writer's publication
// handle (a service copies the request header, not this) and its source time.
type Sample struct {
	Data       []byte
	Writer     uint64
	SourceTime time.Time
}

// LoopbackConfig is a Cyclone configuration (for CYCLONEDDS_URI) that keeps every packet on 127.0.0.1: the
// loopback interface only, multicast off (unicast discovery to the local participants of the domain).
const LoopbackConfig = `<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>` +
	`<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>` +
	`<MaxAutoParticipantIndex>60</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>`
