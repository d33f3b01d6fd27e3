package rosmsg

import (
	"strings"
	"testing"
)

// The TwistStamped golden case joins the shared table (and so the Cyclone comparison and the fuzz seeds).
func init() {
	golden = append(golden, struct {
		name string
		msg  Message
		raw  []byte
	}{"TwistStamped", &TwistStamped{Header: Header{Time{3, 4}, "base_link"}, Twist: Twist{Linear: Vector3{X: 0.2}, Angular: Vector3{Z: -1}}},
		// "base_link" 8-22, pad 2 to 24 for the doubles, linear 24-48, angular 48-72
		hdr().i32(3).u32(4).str("base_link").pad(2).f64(0.2, 0, 0, 0, 0, -1)})
}

func TestTwistStampedSchema(t *testing.T) {
	s, err := Schema("geometry_msgs/msg/TwistStamped")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"std_msgs/Header header\nTwist twist\n", "MSG: std_msgs/Header\n",
		"MSG: builtin_interfaces/Time\n", "MSG: geometry_msgs/Twist\n", "MSG: geometry_msgs/Vector3\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("schema lacks %q:\n%s", want, s)
		}
	}
}
