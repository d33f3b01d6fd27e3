package rosmsg

import "github.com/rosorin/rosorin/protocol/cdr"

// The messages of the node's observability topics: /rosout (rcl_interfaces/msg/Log), /diagnostics
// (diagnostic_msgs/msg/DiagnosticArray) and /tf, /tf_static (tf2_msgs/msg/TFMessage).

// Log levels of rcl_interfaces/msg/Log (its byte constants).
const (
	LogDebug uint8 = 10
	LogInfo  uint8 = 20
	LogWarn  uint8 = 30
	LogError uint8 = 40
	LogFatal uint8 = 50
)

// Log is rcl_interfaces/msg/Log, the message of /rosout.
type Log struct {
	Stamp          Time
	Level          uint8
	Name, Msg      string
	File, Function string
	Line           uint32
}

func (m *Log) MarshalCDR(w *cdr.Writer) {
	m.Stamp.MarshalCDR(w)
	w.Uint8(m.Level)
	w.String(m.Name)
	w.String(m.Msg)
	w.String(m.File)
	w.String(m.Function)
	w.Uint32(m.Line)
}
func (m *Log) UnmarshalCDR(r *cdr.Reader) error {
	m.Stamp.UnmarshalCDR(r)
	m.Level = r.Uint8()
	m.Name, m.Msg, m.File, m.Function = r.String(), r.String(), r.String(), r.String()
	m.Line = r.Uint32()
	return r.Err()
}
func (*Log) ROSType() string { return "rcl_interfaces/msg/Log" }

// Diagnostic levels of diagnostic_msgs/msg/DiagnosticStatus (its byte constants).
const (
	DiagOK    uint8 = 0
	DiagWarn  uint8 = 1
	DiagError uint8 = 2
	DiagStale uint8 = 3
)

// KeyValue is diagnostic_msgs/msg/KeyValue.
type KeyValue struct{ Key, Value string }

func (m *KeyValue) MarshalCDR(w *cdr.Writer) { w.String(m.Key); w.String(m.Value) }
func (m *KeyValue) UnmarshalCDR(r *cdr.Reader) error {
	m.Key, m.Value = r.String(), r.String()
	return r.Err()
}
func (*KeyValue) ROSType() string { return "diagnostic_msgs/msg/KeyValue" }

// DiagnosticStatus is diagnostic_msgs/msg/DiagnosticStatus.
type DiagnosticStatus struct {
	Level                     uint8
	Name, Message, HardwareID string
	Values                    []KeyValue
}

func (m *DiagnosticStatus) MarshalCDR(w *cdr.Writer) {
	w.Uint8(m.Level)
	w.String(m.Name)
	w.String(m.Message)
	w.String(m.HardwareID)
	w.Len(len(m.Values))
	for i := range m.Values {
		m.Values[i].MarshalCDR(w)
	}
}
func (m *DiagnosticStatus) UnmarshalCDR(r *cdr.Reader) error {
	m.Level = r.Uint8()
	m.Name, m.Message, m.HardwareID = r.String(), r.String(), r.String()
	m.Values = nil
	// A KeyValue is at least two string lengths.
	if n := r.SeqLen(8); n > 0 {
		m.Values = make([]KeyValue, n)
		for i := range m.Values {
			if m.Values[i].UnmarshalCDR(r) != nil {
				m.Values = m.Values[:i]
				break
			}
		}
	}
	return r.Err()
}
func (*DiagnosticStatus) ROSType() string { return "diagnostic_msgs/msg/DiagnosticStatus" }

// DiagnosticArray is diagnostic_msgs/msg/DiagnosticArray, the message of /diagnostics.
type DiagnosticArray struct {
	Header Header
	Status []DiagnosticStatus
}

func (m *DiagnosticArray) MarshalCDR(w *cdr.Writer) {
	m.Header.MarshalCDR(w)
	w.Len(len(m.Status))
	for i := range m.Status {
		m.Status[i].MarshalCDR(w)
	}
}
func (m *DiagnosticArray) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.Status = nil
	// A status is at least a level, three string lengths and a sequence length.
	if n := r.SeqLen(17); n > 0 {
		m.Status = make([]DiagnosticStatus, n)
		for i := range m.Status {
			if m.Status[i].UnmarshalCDR(r) != nil {
				m.Status = m.Status[:i]
				break
			}
		}
	}
	return r.Err()
}
func (*DiagnosticArray) ROSType() string { return "diagnostic_msgs/msg/DiagnosticArray" }

// Transform is geometry_msgs/msg/Transform.
type Transform struct {
	Translation Vector3
	Rotation    Quaternion
}

func (m *Transform) MarshalCDR(w *cdr.Writer) { m.Translation.MarshalCDR(w); m.Rotation.MarshalCDR(w) }
func (m *Transform) UnmarshalCDR(r *cdr.Reader) error {
	m.Translation.UnmarshalCDR(r)
	m.Rotation.UnmarshalCDR(r)
	return r.Err()
}
func (*Transform) ROSType() string { return "geometry_msgs/msg/Transform" }

// TransformStamped is geometry_msgs/msg/TransformStamped: the pose of ChildFrameID in Header.FrameID.
type TransformStamped struct {
	Header       Header
	ChildFrameID string
	Transform    Transform
}

func (m *TransformStamped) MarshalCDR(w *cdr.Writer) {
	m.Header.MarshalCDR(w)
	w.String(m.ChildFrameID)
	m.Transform.MarshalCDR(w)
}
func (m *TransformStamped) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.ChildFrameID = r.String()
	m.Transform.UnmarshalCDR(r)
	return r.Err()
}
func (*TransformStamped) ROSType() string { return "geometry_msgs/msg/TransformStamped" }

// TFMessage is tf2_msgs/msg/TFMessage, the message of /tf and /tf_static.
type TFMessage struct{ Transforms []TransformStamped }

func (m *TFMessage) MarshalCDR(w *cdr.Writer) {
	w.Len(len(m.Transforms))
	for i := range m.Transforms {
		m.Transforms[i].MarshalCDR(w)
	}
}
func (m *TFMessage) UnmarshalCDR(r *cdr.Reader) error {
	m.Transforms = nil
	// A transform is at least a time, two string lengths and seven doubles.
	if n := r.SeqLen(72); n > 0 {
		m.Transforms = make([]TransformStamped, n)
		for i := range m.Transforms {
			if m.Transforms[i].UnmarshalCDR(r) != nil {
				m.Transforms = m.Transforms[:i]
				break
			}
		}
	}
	return r.Err()
}
func (*TFMessage) ROSType() string { return "tf2_msgs/msg/TFMessage" }

func init() {
	for k, v := range map[string]struct {
		text string
		deps []string
	}{
		"rcl_interfaces/Log": {"byte DEBUG=10\nbyte INFO=20\nbyte WARN=30\nbyte ERROR=40\nbyte FATAL=50\n" +
			"builtin_interfaces/Time stamp\nuint8 level\nstring name\nstring msg\nstring file\nstring function\nuint32 line\n",
			[]string{"builtin_interfaces/Time"}},
		"diagnostic_msgs/KeyValue": {"string key\nstring value\n", nil},
		"diagnostic_msgs/DiagnosticStatus": {"byte OK=0\nbyte WARN=1\nbyte ERROR=2\nbyte STALE=3\n" +
			"byte level\nstring name\nstring message\nstring hardware_id\nKeyValue[] values\n",
			[]string{"diagnostic_msgs/KeyValue"}},
		"diagnostic_msgs/DiagnosticArray": {"std_msgs/Header header\nDiagnosticStatus[] status\n",
			[]string{"std_msgs/Header", "diagnostic_msgs/DiagnosticStatus"}},
		"geometry_msgs/Transform": {"Vector3 translation\nQuaternion rotation\n",
			[]string{"geometry_msgs/Vector3", "geometry_msgs/Quaternion"}},
		"geometry_msgs/TransformStamped": {"std_msgs/Header header\nstring child_frame_id\nTransform transform\n",
			[]string{"std_msgs/Header", "geometry_msgs/Transform"}},
		"tf2_msgs/TFMessage": {"geometry_msgs/TransformStamped[] transforms\n", []string{"geometry_msgs/TransformStamped"}},
	} {
		definitions[k] = v
	}
}

var (
	_ Message = (*Log)(nil)
	_ Message = (*KeyValue)(nil)
	_ Message = (*DiagnosticStatus)(nil)
	_ Message = (*DiagnosticArray)(nil)
	_ Message = (*Transform)(nil)
	_ Message = (*TransformStamped)(nil)
	_ Message = (*TFMessage)(nil)
)
