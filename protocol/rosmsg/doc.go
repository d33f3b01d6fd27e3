// Package rosmsg holds Go types for the ROS 2 Humble messages and services the toolkit speaks (std_msgs,
// geometry_msgs, sensor_msgs, nav_msgs, std_srvs and rmw_dds_common's discovery info), their plain-CDR
// encoding through protocol/cdr, and their ros2msg definitions (the schema text rosbag2 writes into MCAP).
// Pure: no I/O. The MCAP recorder and the ROS 2 transport use the same types.
//
// Spec: the .msg/.srv files of ROS 2 Humble (common_interfaces 4.2, rcl_interfaces 1.2, rmw_dds_common 1.6),
// mapped to IDL by rosidl as rmw_cyclonedds serializes them: field order as declared, char/byte as uint8,
// fixed arrays without a length, unbounded and bounded sequences and strings with one; an empty service
// request (std_srvs/Trigger) has the one member rosidl adds, `uint8 structure_needs_at_least_one_member`.
//
// DDS type names (rmw_cyclonedds): topic types are "pkg::msg::dds_::Type_", a service's request and reply
// "pkg::srv::dds_::Type_Request_" and "..._Response_"; see TypeName.
package rosmsg
