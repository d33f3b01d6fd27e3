// Package supervisor is the process layer of rosorin-base: the supervisor that owns the board's serial port,
// runs the driver and the LiDAR reader as child processes and writes a stop frame whenever the driver dies,
// and StopMotors, the last-resort tool for systemd's ExecStopPost.
//
// Spec: issue 4 and chapters 11, 14 and 19 of the robot's build log. The board has no motor watchdog: it
// keeps the last wheel speed forever, so every way the driver can end must end in a stop frame.
package supervisor
