// Package driver is the board driver process of rosorin-base: the one program that decides, every 20 ms,
// whether the wheels may turn. It ports chapter 11's board_driver (control loop, trip, on_cmd, on_estop,
// on_enable, on_reset, the read loop's dispatch, publish_imu, wheel odometry, battery and charger, the state
// JSON) without the arm, and serves the control API of driver/api.
//
// # Contract with the supervisor (driver/supervisor, cmd/rosorin-base process_commands.go)
//
//	type Options struct {
//		Config        config.Config // ROS-style parameters; Config.Limits() feeds the gate
//		BoardIn       io.Reader     // board bytes: a pipe from the supervisor, or the port itself in tests
//		BoardOut      io.Writer     // the port: motor and stop frames are written here (never closed by Run)
//		SocketPath    string        // control socket; "" = none
//		SupervisorPID int           // state record; > 0: scans only from that supervisor's reader child
//		StateDir      string        // plugged.json and battery/YYYYMMDD.csv; default $HOME/.local/state/rosorin
//		Log           *slog.Logger
//		Clock         Clock         // nil = real monotonic clock
//		Heartbeat     io.Writer     // control-loop liveness for the supervisor's watchdog; nil = none
//		StartLatched  string        // "" = start disabled; else start with the e-stop latched, this reason
//	}
//	func Run(ctx context.Context, o Options) error
//
// Run writes a stop frame first, checks the configuration, opens the socket (refusing to start if a live
// driver answers on it), and runs the control loop. On ctx cancellation it writes the stop frame twice and
// returns nil. If BoardIn ends (EOF or a read error: the board is gone) or a BoardOut write fails, it writes a
// stop frame (which may fail too) and returns the error, so the supervisor can reopen the port and start a
// new driver, which comes up disabled.
//
// Latched restart: the e-stop latch lives in this process, and a restart must not clear it. The supervisor
// starts every driver after the first one of the service with Options.StartLatched set (environment
// ROSORIN_START_LATCHED on the hidden driver command) unless the previous driver exited cleanly and unlatched:
// "driver restarted after killed by SIGKILL" (or after its crash, "exit status N", or the watchdog's kill,
// with the watchdog's reason), "board port reopened after USB drop", or the previous driver's own latch
// reason, which it reports in its final heartbeat (FinalWord). Such a driver refuses enable until a reset,
// exactly like a latched e-stop; the reset leaves it disabled. The first start of a service is disabled, not
// latched. The LiDAR reader process delivers scans over the same socket
// (api.Client.StreamScans); its pid comes from SO_PEERCRED. Under a supervisor (SupervisorPID > 0) scans are
// taken only from the supervisor's child named api.ReaderComm, others get 403 (scanauth.go): a client of the
// socket cannot hold the scan gate open with made-up scans.
//
// Heartbeat (heartbeat.go): the control loop writes HeartbeatTick when it starts and after every tick, from
// the loop goroutine itself, so a loop that is stuck anywhere falls silent; after the final stop frames Run
// writes its final word (HeartbeatStopping and the e-stop latch, FinalWord). The supervisor's watchdog (driver/supervisor watchdog.go) kills a driver that is
// silent for 150 ms and stops the wheels. The writer must not block; its errors are counted and logged once.
//
// # Goroutines and ownership
//
//   - The control loop (Run's goroutine) owns the gate, odometry, gyro calibration and bias, charger detector,
//     gamepad logic and every counter, and writes the heartbeat. Nothing else touches them.
//   - The board reader parses BoardIn with board.Parser and sends each read's decoded values to the loop.
//   - The board writer writes frames to BoardOut, one pending frame at a time, newest wins. The loop hands it
//     frames and never blocks on the port: a hung USB write leaves the loop running and the state record
//     saying "board write blocked ...". Trips hand the stop frame over at once from the loop, not at the next
//     tick. The start-up and shutdown stop frames are written synchronously by Run itself.
//   - Transport handlers (HTTP) send requests to the loop over a channel and wait up to CallTimeout for the
//     answer; output messages go out through api.Transport.Publish, which never blocks.
//   - A small disk writer keeps plugged.json and the battery CSV off the loop.
//
// # The control tick (50 Hz, control_rate_hz)
//
// Publisher rule (more than one sender trips "multiple cmd_vel publishers"); gamepad locks; Gate.Step; the scan
// gate logged once each way ("wheels held: no LiDAR scan for X s while commanded" / "LiDAR scan back: wheels
// released"); wheel odometry from the gated velocity; gyro stillness for the bias tracker; the wheel frame
// (motion.WheelRPS -> board.EncodeWheelRPS) on every change and at least every MotorRefresh (0.2 s); the
// state record every 0.1 s; board silence checked (no frame for 0.5 s: the state record's warning says the
// driver cannot stop the wheels, and the log says it once, loudly).
//
// An encoder refusal (a wheel speed non-finite or over board.MaxRPS) writes the stop frame instead and is
// counted (link.encode_errors); the configuration check at start refuses limits that could ask a wheel for
// more than board.MaxRPS, so this is a second line, not a normal path. A velocity command the gate refuses
// (non-finite, or over 10x the limits) stops the wheels at once and is counted (link.rejected_cmds), and so
// does an unparseable one (transports call Handler.BadCommand).
//
// # Inputs from the board
//
// IMU: the first gyro_calib_seconds (3 s) of samples calibrate the bias and are not published; then each
// sample goes through the bias tracker, the accelerometer offset and scale, SI units and the chapter 11
// covariances. Battery: the charger detector (a step of 190 mV or more with the wheels disabled for 3 s), the
// plugged state written to StateDir/plugged.json and loaded at start, and one CSV line per 10 s to
// StateDir/battery/YYYYMMDD.csv (unix time, mV, wheels enabled; the seed's arm column is gone with the arm).
// Gamepad: the Joy message and motion.Pad's decisions (any button but MODE trips on its first frame; MODE
// held 2 s while latched resets; a MODE double press while enabled unlocks stick driving, which is exempt from
// the scan gate). Key frames: motion.KeyTrip.
//
// # Errata and changes from the seed
//
//   - Stamps on output messages are the driver's start wall time plus monotonic time since start, so a wall
//     clock step does not bend them mid-run.
//   - The e-stop reason of a socket request is "estop request from pid N (comm)[: reason]" (the seed's topic
//     gave "estop topic"): the first reason says who pressed it.
//   - Enabling does not move an arm (the arm is out of scope).
//   - A bad velocity command stops the wheels (the seed would have raised inside rclpy).
package driver
