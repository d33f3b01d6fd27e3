// Package sim is a simulated ROSOrin that the driver and the proofs cannot tell from the real robot at
// the byte level: the controller board and the COIN-D6 LiDAR appear as serial devices (pseudo-terminals
// published at stable symlinks under Config.Dir), physics decides what the IMU and the LiDAR report, and
// faults (FaultSpecs) break it on purpose.
//
//	s, err := sim.Start(ctx, sim.Config{Dir: dir, World: "stand", Seed: 1})
//	defer s.Close()
//	port, _ := serial.Open(s.BoardPath(), &serial.Mode{BaudRate: board.Baud})
//
// Spec: the board protocol (protocol/board; the firmware has no motor watchdog, a wheel keeps its last
// speed) and the COIN-D6 stream (protocol/coind6); the models are fitted to the robot's measurements,
// each constant citing its source. Usage, the fault table, room files and the fit are in docs/sim.md.
//
// Errata: the firmware's handling of NaN speeds and ids >= 4, the IMU mounting, the vibration spectrum, the
// idle gamepad hat and the sign of a stick pushed forward are not in the seeds; the sim's choices are listed
// in docs/sim.md. The devices need Linux; elsewhere Start returns an error.
package sim
