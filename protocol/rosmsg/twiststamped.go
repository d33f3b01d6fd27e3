package rosmsg

import "github.com/rosorin/rosorin/protocol/cdr"

// TwistStamped is geometry_msgs/msg/TwistStamped: the recorder's "twist sent to the wheels" channel.
type TwistStamped struct {
	Header Header
	Twist  Twist
}

func (m *TwistStamped) MarshalCDR(w *cdr.Writer) { m.Header.MarshalCDR(w); m.Twist.MarshalCDR(w) }
func (m *TwistStamped) UnmarshalCDR(r *cdr.Reader) error {
	m.Header.UnmarshalCDR(r)
	m.Twist.UnmarshalCDR(r)
	return r.Err()
}
func (*TwistStamped) ROSType() string { return "geometry_msgs/msg/TwistStamped" }

var _ Message = (*TwistStamped)(nil)

func init() {
	definitions["geometry_msgs/TwistStamped"] = struct {
		text string
		deps []string
	}{"std_msgs/Header header\nTwist twist\n", []string{"std_msgs/Header", "geometry_msgs/Twist"}}
}
