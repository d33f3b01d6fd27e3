// Package api is the driver's control API: the wire types (state record, IMU, scan, battery, odometry,
// gamepad, velocity commands, replies), the transport interfaces that keep the gate independent of how
// commands arrive (Handler in, Transport out), the default transport (Server: HTTP/1.1 and JSON over a unix
// socket, mode 0660, usable with curl) and its Go client.
//
// It carries what the seed's ROS topics and services carried (chapter 11; names after the ROSbot 3 API's
// habit of one stream per topic and std_srvs-shaped replies):
//
//	GET  /v1/state[?follow=1]    ~/state (std_msgs/String JSON), 10 Hz when followed
//	GET  /v1/imu?follow=1        imu/data_raw (sensor_msgs/Imu), ~110 Hz
//	GET  /v1/scan?follow=1       scan (sensor_msgs/LaserScan), ~10 Hz; +Inf ranges as JSON null
//	GET  /v1/battery?follow=1    battery (sensor_msgs/BatteryState), ~1 Hz
//	GET  /v1/odom?follow=1       wheel/odom (nav_msgs/Odometry), 50 Hz
//	GET  /v1/gamepad?follow=1    gamepad (sensor_msgs/Joy), ~20 Hz while a pad is connected
//	GET  /v1/log?follow=1        /rosout (rcl_interfaces/Log): the driver's log lines at INFO and above
//	GET  /v1/stops?follow=1      ~/stops (std_msgs/String JSON): one StopRecord per stop, once judged
//	GET  /v1/config              the parameters in use
//	POST /v1/config              set runtime parameters, all or nothing, tighten only (~/set_parameters*)
//	GET  /v1/params              every parameter: ROS type, description, read_only, running and start value
//	POST /v1/cmd_vel             cmd_vel (geometry_msgs/Twist): one JSON twist, or a chunked JSON-lines stream
//	                             (PUT is the same, for curl -T -)
//	POST /v1/estop               estop (std_msgs/Bool true): latches the e-stop
//	POST /v1/enable              ~/enable (std_srvs/SetBool) {"data":true|false} -> {"success":..,"message":..}
//	POST /v1/reset               ~/reset_estop (std_srvs/Trigger): "e-stop cleared (was: X); motion still disabled"
//	POST /v1/scan                scan ingestion from the LiDAR reader process (chunked JSON lines)
//
// Who may send scans (ScanAuthorizer), the limits on bad input and floods, and why e-stop and disable are
// never refused are in docs/driver.md ("The control API").
//
// Examples:
//
//	curl --unix-socket /run/rosorin/base.sock http://rosorin/v1/state
//	curl --unix-socket /run/rosorin/base.sock -d '{"data":true}' http://rosorin/v1/enable
//	curl --unix-socket /run/rosorin/base.sock -d '{"vx":0.1}' http://rosorin/v1/cmd_vel
//	my_planner | curl --unix-socket /run/rosorin/base.sock -T - http://rosorin/v1/cmd_vel   (one publisher)
//	curl -N --unix-socket /run/rosorin/base.sock 'http://rosorin/v1/imu?follow=1'
//
// Publishers: every connection carries the kernel's SO_PEERCRED pid of its sender (Peer), from which the
// driver applies the two-publisher rule (driver/publishers.go).
//
// Errata: HTTP/1.1 cannot answer a stream line by line without full duplex; a cmd_vel stream's outcome
// (accepted, rejected, dropped) comes once, when it ends. A refused command's details are in the state
// record (last_rejected) at once.
package api
