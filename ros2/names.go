package ros2

import (
	"fmt"
	"strings"
)

// NodeName is the seed's node name (chapter 11): the Python driver's, so tools and launch files that name
// it keep working.
const NodeName = "rosorin_board_driver"

// CheckNamespace normalizes a namespace ("", "/", "robot1", "/robot1/" -> "" or "/robot1") and checks its
// tokens (ROS 2 name rules: letters, digits, underscores, not starting with a digit).
func CheckNamespace(ns string) (string, error) {
	ns = strings.Trim(ns, "/")
	if ns == "" {
		return "", nil
	}
	for _, tok := range strings.Split(ns, "/") {
		if err := checkToken(tok); err != nil {
			return "", fmt.Errorf("namespace %q: %w", ns, err)
		}
	}
	return "/" + ns, nil
}

func checkToken(tok string) error {
	if tok == "" {
		return fmt.Errorf("empty name token")
	}
	for i, c := range tok {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return fmt.Errorf("token %q: %q is not allowed (letters, digits, underscore; no leading digit)", tok, c)
		}
	}
	return nil
}

// Resolve is a ROS name's fully qualified form for a node in namespace ns (CheckNamespace's form):
// "~/state" -> "/ns/node/state", "cmd_vel" -> "/ns/cmd_vel", "/cmd_vel" stays.
func Resolve(ns, node, name string) string {
	switch {
	case strings.HasPrefix(name, "/"):
		return name
	case name == "~":
		return ns + "/" + node
	case strings.HasPrefix(name, "~/"):
		return ns + "/" + node + name[1:]
	default:
		return ns + "/" + name
	}
}

// TopicName is rmw_cyclonedds' DDS topic name of a fully qualified ROS topic: "/cmd_vel" -> "rt/cmd_vel".
func TopicName(fq string) string { return "rt" + fq }

// RequestTopic and ReplyTopic are the DDS topics of a fully qualified service name:
// "/rosorin_board_driver/enable" -> "rq/rosorin_board_driver/enableRequest", "rr/...Reply".
func RequestTopic(fq string) string { return "rq" + fq + "Request" }
func ReplyTopic(fq string) string   { return "rr" + fq + "Reply" }

// DiscoveryTopic is the topic `ros2 node list` reads (rmw_dds_common's graph cache), with its type.
const (
	DiscoveryTopic = "ros_discovery_info"
	DiscoveryType  = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"
)

// ServiceUserData is the endpoint user data rmw_cyclonedds (Humble) gives a service's request reader and
// reply writer ("serviceid=" + the id as hex bytes joined by dots, only the first zero-padded, as its
// csid_to_string prints it) or a client's ("clientid="). `ros2 service call` waits until it sees a server's
// request reader and reply writer with the same id.
func ServiceUserData(kind string, id [16]byte) string {
	var b strings.Builder
	b.WriteString(kind + "=")
	fmt.Fprintf(&b, "%02x", id[0])
	for _, c := range id[1:] {
		fmt.Fprintf(&b, ".%x", c)
	}
	b.WriteString(";")
	return b.String()
}
