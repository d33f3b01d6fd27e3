package ros2

import (
	"fmt"
	"strings"

	"github.com/rosorin/rosorin/protocol/rosname"
)

// NodeName is the seed's node name (chapter 11): the Python driver's, so tools and launch files that name
// it keep working.
const NodeName = rosname.NodeName

// CheckNamespace normalizes a namespace and checks its tokens (rosname.CheckNamespace).
func CheckNamespace(ns string) (string, error) { return rosname.CheckNamespace(ns) }

// Resolve is a ROS name's fully qualified form for a node in namespace ns (rosname.Resolve).
func Resolve(ns, node, name string) string { return rosname.Resolve(ns, node, name) }

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
