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
//	GET  /v1/config              the parameters in use
//	POST /v1/cmd_vel             cmd_vel (geometry_msgs/Twist): one JSON twist, or a chunked JSON-lines stream
//	                             (PUT is the same, for curl -T -)
//	POST /v1/estop               estop (std_msgs/Bool true): latches the e-stop
//	POST /v1/enable              ~/enable (std_srvs/SetBool) {"data":true|false} -> {"success":..,"message":..}
//	POST /v1/reset               ~/reset_estop (std_srvs/Trigger): "e-stop cleared (was: X); motion still disabled"
//	POST /v1/scan                scan ingestion from the LiDAR reader process (chunked JSON lines)
//
// Who may send scans: the scan gate lets software commands move the wheels only while scans arrive, so a
// Handler may restrict ingestion (ScanAuthorizer); a refused sender gets 403 with the reason, is counted
// (state: link.refused_scans) and never reaches the gate or the state's pids.lidar_reader. The driver under
// `rosorin-base run` (its SupervisorPID set) takes scans only from a peer whose SO_PEERCRED pid has the
// supervisor as parent (/proc/PID/stat) and is named ReaderComm ("rosorin-lidar", /proc/PID/comm): the
// reader child the supervisor started. Without a supervisor (SupervisorPID 0: tests, a driver started by
// hand) any client of the socket may send scans, and the state names whoever streams them as the reader.
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
// Bad input: strict JSON (unknown fields, trailing data, NaN/Infinity literals and numbers beyond float64
// are 400), bodies over MaxBody are 413, one-shot floods over RequestRate are 429, a stream over its rate
// has lines dropped and is closed with 429 after StreamFloodLimit drops. An unparseable velocity command
// stops the wheels (Handler.BadCommand) and is counted; a parseable but absurd one is refused by the gate,
// which stops the wheels too.
//
// E-stop and disable are never refused by a limit: POST /v1/estop and POST /v1/enable are outside the
// concurrent-request cap (MaxActive) and the followers' cap (MaxFollowers); e-stop and enable false are not
// rate limited (enable true is); their bodies may be up to MaxSafetyBody (64 KB), and an e-stop with a
// broken or oversize body still latches. Follow streams have a cap of their own (MaxFollowers), so open
// dashboards never crowd out commands; other requests (cmd_vel and scan streams, one-shot GETs and POSTs)
// share MaxActive.
//
// Output streams never block the driver: each follower has a queue of SubscriberQueue messages; when it is
// full, messages for that follower are dropped and counted (state: link.dropped_msgs), and a follower that
// takes nothing for WriteTimeout is disconnected.
//
// Errata: HTTP/1.1 cannot answer a stream line by line without full duplex; a cmd_vel stream's outcome
// (accepted, rejected, dropped) comes once, when it ends. A refused command's details are in the state
// record (last_rejected) at once.
package api
