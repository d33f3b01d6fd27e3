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
}

// The ROS 2 profiles (rmw_qos_profile_default, _sensor_data, _services_default) and the latched profile
// (~/state, ros_discovery_info: a late joiner gets the last sample).
var (
	Default    = QoS{Reliable: true, Depth: 10}
	SensorData = QoS{Reliable: false, Depth: 5}
	Services   = QoS{Reliable: true, Depth: 10}
	Latched    = QoS{Reliable: true, TransientLocal: true, Depth: 1}
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
