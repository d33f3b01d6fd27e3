// Package driver is the board driver process of rosorin-base: the one program that decides, every control
// tick, whether the wheels may turn. Run is the process (Options are its inputs); RunChild is Run as
// `rosorin-base run` starts it, with the signals and descriptors of a supervisor's child. The control API it
// serves is driver/api; its pure logic (the gate, kinematics, IMU, gamepad) is driver/motion.
//
// Spec: chapter 11's board_driver (control loop, trip, on_cmd, on_estop, on_enable, on_reset, the read
// loop's dispatch, publish_imu, wheel odometry, battery and charger, the state JSON) without the arm. How it
// behaves, with its figures, is docs/driver.md. Where each rule lives:
//
//	run.go        Run: the start-up stop frame, the control tick, the shutdown stop frames
//	child.go      the driver child: a signal halts the board output first; parent death
//	publishers.go the two-publisher rule
//	scanauth.go   who may feed the scan gate
//	heartbeat.go  the control loop's heartbeat to the supervisor (codec: driver/heartbeat)
//	boardio.go    the board reader and writer goroutines (a hung USB write never stops the loop)
//	handler.go    api.Handler: each request becomes a request to the loop
//	telemetry.go  board inputs: IMU, battery and charger (driver/charger), gamepad, keys
//	state.go      the state record (meters.go: its rates and tick timing)
//	loopstate.go  the loop's state; params.go: the configuration in driver/motion's types
//	disk.go       plugged.json and the battery log, written off the loop
//	latchfile.go  the durable e-stop latch (estop.json in the state directory): format, start-up reading
//	persist.go    the persister: the latch after its stop frame, the kept runtime parameters, never on the loop
//	contact.go    the contact reflex: its scan matcher's goroutine, its trip (decision: judge/contact)
//
// One goroutine, the control loop, owns the gate and every counter; the others (board reader, board writer,
// transport handlers, disk writer, the contact reflex's scan matcher) talk to it over channels and never
// block it.
//
// Errata (differences from the seed):
//   - Stamps on output messages are the driver's start wall time plus monotonic time since start, so a wall
//     clock step does not bend them mid-run.
//   - The e-stop reason of a socket request is "estop request from pid N (comm)[: reason]" (the seed's topic
//     gave "estop topic"): the first reason says who pressed it.
//   - Enabling does not move an arm (the arm is out of scope).
//   - A bad velocity command stops the wheels (the seed would have raised inside rclpy).
//   - The contact reflex (chapter 19's rosorin-contact, a DDS node there) runs inside the driver and trips
//     through the loop's own trip path; a contact latch is cleared only by reset (docs/contact.md).
//   - A restart does not clear an e-stop: a driver started after one that crashed, was killed, hung, lost the
//     board or exited latched starts latched (Options.StartLatched), and neither does a restart of the
//     supervisor, the service or the machine (the latch file, latchfile.go).
package driver
