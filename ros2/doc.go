// Package ros2 is the driver's ROS 2 interface at the DDS level, without ROS installed: the node
// rosorin_board_driver (Bridge, the binary rosorin-ros2, started by `rosorin-base run --ros2`) that publishes the
// driver's streams (~/source among them) and takes the velocity inputs (manual/cmd_vel, autonomous/cmd_vel,
// cmd_vel), estop, ~/enable and ~/reset_estop, serves the parameters (rcl_interfaces services and
// /parameter_events, params.go), as a client of the driver's control socket; and the other side
// of that interface (Peer: velocity publishers, e-stops, service clients, subscriptions), which proofs/target
// drives the proofs through.
//
// Spec: ROS 2 Humble with rmw_cyclonedds_cpp, as it lays a node out on DDS: topics "rt/<name>", services
// "rq/<name>Request" and "rr/<name>Reply" with a 16-byte request header (client id, sequence number) before
// the body, type names "pkg::msg::dds_::Type_", participant user data "enclave=/;", service endpoints'
// "serviceid=...;", the node's entry on ros_discovery_info; names resolved as rcl does ("~/x", relative,
// absolute). Messages: protocol/rosmsg. Transport: ros2/dds (build tag ros2).
//
// Errata: services do not interoperate with Fast DDS (it carries the request id elsewhere); topics do. No
// type information or type hash (Humble sends none). A one-shot e-stop can reach this host before its writer
// is discovered and be dropped; the e-stop readers catch up (dds.QoS.CatchUp) and estopWatch latches when an
// announced sample does not arrive or a short-lived writer leaves with nothing received. Details, QoS table
// and figures: docs/ros2.md.
package ros2
