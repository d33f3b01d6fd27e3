package rosmsg

import (
	"fmt"
	"strings"

	"github.com/rosorin/rosorin/protocol/cdr"
)

// Message is a ROS 2 message or service part: it encodes, decodes and names itself.
type Message interface {
	cdr.Marshaler
	cdr.Unmarshaler
	// ROSType is the ROS name, "sensor_msgs/msg/Imu".
	ROSType() string
}

// TypeName is the DDS type name rmw_cyclonedds registers for a ROS type: "sensor_msgs/msg/Imu" ->
// "sensor_msgs::msg::dds_::Imu_".
func TypeName(rosType string) string {
	f := strings.Split(rosType, "/")
	if len(f) != 3 || f[0] == "" || f[1] == "" || f[2] == "" {
		return ""
	}
	return f[0] + "::" + f[1] + "::dds_::" + f[2] + "_"
}

// Time is builtin_interfaces/msg/Time.
type Time struct {
	Sec     int32
	Nanosec uint32
}

func (t *Time) MarshalCDR(w *cdr.Writer) { w.Int32(t.Sec); w.Uint32(t.Nanosec) }
func (t *Time) UnmarshalCDR(r *cdr.Reader) error {
	t.Sec, t.Nanosec = r.Int32(), r.Uint32()
	if t.Nanosec >= 1e9 {
		r.Fail(fmt.Errorf("rosmsg: Time.nanosec %d is not below 1e9", t.Nanosec))
	}
	return r.Err()
}
func (*Time) ROSType() string { return "builtin_interfaces/msg/Time" }

// TimeFromNanos converts nanoseconds since the epoch.
func TimeFromNanos(ns int64) Time {
	return Time{Sec: int32(ns / 1e9), Nanosec: uint32(ns % 1e9)}
}

// Nanos is the time in nanoseconds since the epoch.
func (t Time) Nanos() int64 { return int64(t.Sec)*1e9 + int64(t.Nanosec) }

// Header is std_msgs/msg/Header.
type Header struct {
	Stamp   Time
	FrameID string
}

func (h *Header) MarshalCDR(w *cdr.Writer) { h.Stamp.MarshalCDR(w); w.String(h.FrameID) }
func (h *Header) UnmarshalCDR(r *cdr.Reader) error {
	h.Stamp.UnmarshalCDR(r)
	h.FrameID = r.String()
	return r.Err()
}
func (*Header) ROSType() string { return "std_msgs/msg/Header" }

// Bool is std_msgs/msg/Bool.
type Bool struct{ Data bool }

func (m *Bool) MarshalCDR(w *cdr.Writer)         { w.Bool(m.Data) }
func (m *Bool) UnmarshalCDR(r *cdr.Reader) error { m.Data = r.Bool(); return r.Err() }
func (*Bool) ROSType() string                    { return "std_msgs/msg/Bool" }

// String is std_msgs/msg/String.
type String struct{ Data string }

func (m *String) MarshalCDR(w *cdr.Writer)         { w.String(m.Data) }
func (m *String) UnmarshalCDR(r *cdr.Reader) error { m.Data = r.String(); return r.Err() }
func (*String) ROSType() string                    { return "std_msgs/msg/String" }

// Vector3 is geometry_msgs/msg/Vector3 (and, with the same layout, Point).
type Vector3 struct{ X, Y, Z float64 }

func (v *Vector3) MarshalCDR(w *cdr.Writer) { w.Float64(v.X); w.Float64(v.Y); w.Float64(v.Z) }
func (v *Vector3) UnmarshalCDR(r *cdr.Reader) error {
	v.X, v.Y, v.Z = r.Float64(), r.Float64(), r.Float64()
	return r.Err()
}
func (*Vector3) ROSType() string { return "geometry_msgs/msg/Vector3" }

// Quaternion is geometry_msgs/msg/Quaternion.
type Quaternion struct{ X, Y, Z, W float64 }

func (q *Quaternion) MarshalCDR(w *cdr.Writer) {
	w.Float64(q.X)
	w.Float64(q.Y)
	w.Float64(q.Z)
	w.Float64(q.W)
}
func (q *Quaternion) UnmarshalCDR(r *cdr.Reader) error {
	q.X, q.Y, q.Z, q.W = r.Float64(), r.Float64(), r.Float64(), r.Float64()
	return r.Err()
}
func (*Quaternion) ROSType() string { return "geometry_msgs/msg/Quaternion" }

// Twist is geometry_msgs/msg/Twist.
type Twist struct{ Linear, Angular Vector3 }

func (m *Twist) MarshalCDR(w *cdr.Writer) { m.Linear.MarshalCDR(w); m.Angular.MarshalCDR(w) }
func (m *Twist) UnmarshalCDR(r *cdr.Reader) error {
	m.Linear.UnmarshalCDR(r)
	m.Angular.UnmarshalCDR(r)
	return r.Err()
}
func (*Twist) ROSType() string { return "geometry_msgs/msg/Twist" }

// Pose is geometry_msgs/msg/Pose.
type Pose struct {
	Position    Vector3 // geometry_msgs/Point: same layout as Vector3
	Orientation Quaternion
}

func (m *Pose) MarshalCDR(w *cdr.Writer) { m.Position.MarshalCDR(w); m.Orientation.MarshalCDR(w) }
func (m *Pose) UnmarshalCDR(r *cdr.Reader) error {
	m.Position.UnmarshalCDR(r)
	m.Orientation.UnmarshalCDR(r)
	return r.Err()
}
func (*Pose) ROSType() string { return "geometry_msgs/msg/Pose" }

func putFloats(w *cdr.Writer, v []float64) {
	for _, f := range v {
		w.Float64(f)
	}
}

func getFloats(r *cdr.Reader, v []float64) {
	for i := range v {
		v[i] = r.Float64()
	}
}

// Imu is sensor_msgs/msg/Imu.
type Imu struct {
	Header                       Header
	Orientation                  Quaternion
	OrientationCovariance        [9]float64
	AngularVelocity              Vector3
	AngularVelocityCovariance    [9]float64
	LinearAcceleration           Vector3
	LinearAccelerationCovariance [9]float64
}

func (m *Imu) MarshalCDR(w *cdr.Writer) {
	m.Header.MarshalCDR(w)
	m.Orientation.MarshalCDR(w)
	putFloats(w, m.OrientationCovariance[:])
	m.AngularVelocity.MarshalCDR(w)
	putFloats(w, m.AngularVelocityCovariance[:])
	m.LinearAcceleration.MarshalCDR(w)
	putFloats(w, m.LinearAccelerationCovariance[:])
}
func (m *Imu) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.Orientation.UnmarshalCDR(r)
	getFloats(r, m.OrientationCovariance[:])
	m.AngularVelocity.UnmarshalCDR(r)
	getFloats(r, m.AngularVelocityCovariance[:])
	m.LinearAcceleration.UnmarshalCDR(r)
	getFloats(r, m.LinearAccelerationCovariance[:])
	return r.Err()
}
func (*Imu) ROSType() string { return "sensor_msgs/msg/Imu" }

func putFloat32s(w *cdr.Writer, v []float32) {
	w.Len(len(v))
	for _, f := range v {
		w.Float32(f)
	}
}

func getFloat32s(r *cdr.Reader) []float32 {
	n := r.SeqLen(4)
	if n == 0 {
		return nil
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()
	}
	return v
}

// LaserScan is sensor_msgs/msg/LaserScan.
type LaserScan struct {
	Header                                      Header
	AngleMin, AngleMax, AngleIncrement          float32
	TimeIncrement, ScanTime, RangeMin, RangeMax float32
	Ranges, Intensities                         []float32
}

func (m *LaserScan) MarshalCDR(w *cdr.Writer) {
	m.Header.MarshalCDR(w)
	for _, f := range []float32{m.AngleMin, m.AngleMax, m.AngleIncrement, m.TimeIncrement, m.ScanTime, m.RangeMin, m.RangeMax} {
		w.Float32(f)
	}
	putFloat32s(w, m.Ranges)
	putFloat32s(w, m.Intensities)
}
func (m *LaserScan) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.AngleMin, m.AngleMax, m.AngleIncrement = r.Float32(), r.Float32(), r.Float32()
	m.TimeIncrement, m.ScanTime, m.RangeMin, m.RangeMax = r.Float32(), r.Float32(), r.Float32(), r.Float32()
	m.Ranges = getFloat32s(r)
	m.Intensities = getFloat32s(r)
	return r.Err()
}
func (*LaserScan) ROSType() string { return "sensor_msgs/msg/LaserScan" }

// BatteryState power_supply_status values (sensor_msgs/msg/BatteryState constants).
const (
	PowerSupplyStatusUnknown     uint8 = 0
	PowerSupplyStatusCharging    uint8 = 1
	PowerSupplyStatusDischarging uint8 = 2
	PowerSupplyStatusNotCharging uint8 = 3
	PowerSupplyStatusFull        uint8 = 4
)

// BatteryState is sensor_msgs/msg/BatteryState. Unmeasured values are NaN by the message's convention.
type BatteryState struct {
	Header                                                      Header
	Voltage, Temperature, Current, Charge, Capacity             float32
	DesignCapacity, Percentage                                  float32
	PowerSupplyStatus, PowerSupplyHealth, PowerSupplyTechnology uint8
	Present                                                     bool
	CellVoltage, CellTemperature                                []float32
	Location, SerialNumber                                      string
}

func (m *BatteryState) MarshalCDR(w *cdr.Writer) {
	m.Header.MarshalCDR(w)
	for _, f := range []float32{m.Voltage, m.Temperature, m.Current, m.Charge, m.Capacity, m.DesignCapacity, m.Percentage} {
		w.Float32(f)
	}
	w.Uint8(m.PowerSupplyStatus)
	w.Uint8(m.PowerSupplyHealth)
	w.Uint8(m.PowerSupplyTechnology)
	w.Bool(m.Present)
	putFloat32s(w, m.CellVoltage)
	putFloat32s(w, m.CellTemperature)
	w.String(m.Location)
	w.String(m.SerialNumber)
}
func (m *BatteryState) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.Voltage, m.Temperature, m.Current, m.Charge = r.Float32(), r.Float32(), r.Float32(), r.Float32()
	m.Capacity, m.DesignCapacity, m.Percentage = r.Float32(), r.Float32(), r.Float32()
	m.PowerSupplyStatus, m.PowerSupplyHealth, m.PowerSupplyTechnology = r.Uint8(), r.Uint8(), r.Uint8()
	m.Present = r.Bool()
	m.CellVoltage = getFloat32s(r)
	m.CellTemperature = getFloat32s(r)
	m.Location = r.String()
	m.SerialNumber = r.String()
	return r.Err()
}
func (*BatteryState) ROSType() string { return "sensor_msgs/msg/BatteryState" }

// Joy is sensor_msgs/msg/Joy.
type Joy struct {
	Header  Header
	Axes    []float32
	Buttons []int32
}

func (m *Joy) MarshalCDR(w *cdr.Writer) {
	m.Header.MarshalCDR(w)
	putFloat32s(w, m.Axes)
	w.Len(len(m.Buttons))
	for _, b := range m.Buttons {
		w.Int32(b)
	}
}
func (m *Joy) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.Axes = getFloat32s(r)
	if n := r.SeqLen(4); n > 0 {
		m.Buttons = make([]int32, n)
		for i := range m.Buttons {
			m.Buttons[i] = r.Int32()
		}
	} else {
		m.Buttons = nil
	}
	return r.Err()
}
func (*Joy) ROSType() string { return "sensor_msgs/msg/Joy" }

// Odometry is nav_msgs/msg/Odometry.
type Odometry struct {
	Header          Header
	ChildFrameID    string
	Pose            Pose
	PoseCovariance  [36]float64 // geometry_msgs/PoseWithCovariance.covariance
	Twist           Twist
	TwistCovariance [36]float64 // geometry_msgs/TwistWithCovariance.covariance
}

func (m *Odometry) MarshalCDR(w *cdr.Writer) {
	m.Header.MarshalCDR(w)
	w.String(m.ChildFrameID)
	m.Pose.MarshalCDR(w)
	putFloats(w, m.PoseCovariance[:])
	m.Twist.MarshalCDR(w)
	putFloats(w, m.TwistCovariance[:])
}
func (m *Odometry) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.ChildFrameID = r.String()
	m.Pose.UnmarshalCDR(r)
	getFloats(r, m.PoseCovariance[:])
	m.Twist.UnmarshalCDR(r)
	getFloats(r, m.TwistCovariance[:])
	return r.Err()
}
func (*Odometry) ROSType() string { return "nav_msgs/msg/Odometry" }

// SetBoolRequest is std_srvs/srv/SetBool's request.
type SetBoolRequest struct{ Data bool }

func (m *SetBoolRequest) MarshalCDR(w *cdr.Writer)         { w.Bool(m.Data) }
func (m *SetBoolRequest) UnmarshalCDR(r *cdr.Reader) error { m.Data = r.Bool(); return r.Err() }
func (*SetBoolRequest) ROSType() string                    { return "std_srvs/srv/SetBool_Request" }

// SetBoolResponse is std_srvs/srv/SetBool's response.
type SetBoolResponse struct {
	Success bool
	Message string
}

func (m *SetBoolResponse) MarshalCDR(w *cdr.Writer) { putResponse(w, m.Success, m.Message) }
func (m *SetBoolResponse) UnmarshalCDR(r *cdr.Reader) error {
	m.Success, m.Message = r.Bool(), r.String()
	return r.Err()
}
func (*SetBoolResponse) ROSType() string { return "std_srvs/srv/SetBool_Response" }

// TriggerResponse is std_srvs/srv/Trigger's response (the same fields as SetBool's).
type TriggerResponse struct {
	Success bool
	Message string
}

func (m *TriggerResponse) MarshalCDR(w *cdr.Writer) { putResponse(w, m.Success, m.Message) }
func (m *TriggerResponse) UnmarshalCDR(r *cdr.Reader) error {
	m.Success, m.Message = r.Bool(), r.String()
	return r.Err()
}
func (*TriggerResponse) ROSType() string { return "std_srvs/srv/Trigger_Response" }

func putResponse(w *cdr.Writer, ok bool, msg string) { w.Bool(ok); w.String(msg) }

// TriggerRequest is std_srvs/srv/Trigger's request: empty in the .srv, one uint8 member in IDL.
type TriggerRequest struct{}

func (*TriggerRequest) MarshalCDR(w *cdr.Writer)         { w.Uint8(0) }
func (*TriggerRequest) UnmarshalCDR(r *cdr.Reader) error { r.Uint8(); return r.Err() }
func (*TriggerRequest) ROSType() string                  { return "std_srvs/srv/Trigger_Request" }

// GidLen is the length of rmw_dds_common/msg/Gid's data in Humble: the 16-byte DDS GUID and 8 zero bytes.
const GidLen = 24

// Gid is rmw_dds_common/msg/Gid.
type Gid [GidLen]byte

// GidFromGUID pads a 16-byte DDS GUID to a Humble gid.
func GidFromGUID(guid [16]byte) Gid {
	var g Gid
	copy(g[:], guid[:])
	return g
}

// NodeEntitiesInfo is rmw_dds_common/msg/NodeEntitiesInfo.
type NodeEntitiesInfo struct {
	NodeNamespace, NodeName string
	ReaderGids, WriterGids  []Gid
}

// ParticipantEntitiesInfo is rmw_dds_common/msg/ParticipantEntitiesInfo, the message of the
// ros_discovery_info topic that `ros2 node list` reads.
type ParticipantEntitiesInfo struct {
	Gid   Gid
	Nodes []NodeEntitiesInfo
}

// maxNodeName is the bound of NodeEntitiesInfo's strings (string<=256).
const maxNodeName = 256

func putGids(w *cdr.Writer, g []Gid) {
	w.Len(len(g))
	for i := range g {
		w.Octets(g[i][:])
	}
}

func getGids(r *cdr.Reader) []Gid {
	n := r.SeqLen(GidLen)
	if n == 0 {
		return nil
	}
	g := make([]Gid, n)
	for i := range g {
		copy(g[i][:], r.Octets(GidLen))
	}
	return g
}

func (m *ParticipantEntitiesInfo) MarshalCDR(w *cdr.Writer) {
	w.Octets(m.Gid[:])
	w.Len(len(m.Nodes))
	for i := range m.Nodes {
		n := &m.Nodes[i]
		w.String(n.NodeNamespace)
		w.String(n.NodeName)
		putGids(w, n.ReaderGids)
		putGids(w, n.WriterGids)
	}
}
func (m *ParticipantEntitiesInfo) UnmarshalCDR(r *cdr.Reader) error {
	copy(m.Gid[:], r.Octets(GidLen))
	// A node entry is at least two empty strings (4+1 bytes each, aligned) and two sequence lengths.
	n := r.SeqLen(16)
	m.Nodes = nil
	if n > 0 {
		m.Nodes = make([]NodeEntitiesInfo, n)
	}
	for i := range m.Nodes {
		e := &m.Nodes[i]
		e.NodeNamespace, e.NodeName = r.String(), r.String()
		if len(e.NodeNamespace) > maxNodeName || len(e.NodeName) > maxNodeName {
			r.Fail(fmt.Errorf("rosmsg: node name or namespace over %d bytes", maxNodeName))
		}
		e.ReaderGids, e.WriterGids = getGids(r), getGids(r)
		if r.Err() != nil {
			m.Nodes = m.Nodes[:i]
			break
		}
	}
	return r.Err()
}
func (*ParticipantEntitiesInfo) ROSType() string { return "rmw_dds_common/msg/ParticipantEntitiesInfo" }

// Compile-time checks: every type is a Message.
var (
	_ Message = (*Time)(nil)
	_ Message = (*Header)(nil)
	_ Message = (*Bool)(nil)
	_ Message = (*String)(nil)
	_ Message = (*Vector3)(nil)
	_ Message = (*Quaternion)(nil)
	_ Message = (*Twist)(nil)
	_ Message = (*Pose)(nil)
	_ Message = (*Imu)(nil)
	_ Message = (*LaserScan)(nil)
	_ Message = (*BatteryState)(nil)
	_ Message = (*Joy)(nil)
	_ Message = (*Odometry)(nil)
	_ Message = (*SetBoolRequest)(nil)
	_ Message = (*SetBoolResponse)(nil)
	_ Message = (*TriggerResponse)(nil)
	_ Message = (*TriggerRequest)(nil)
	_ Message = (*ParticipantEntitiesInfo)(nil)
)
