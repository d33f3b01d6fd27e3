// Package childproc is the contract between the supervisor (driver/supervisor, `rosorin-base run`) and the
// processes around it, in one place both sides import, as driver/heartbeat is for the heartbeat's bytes: the
// descriptors and environment variables a driver child inherits, the child's side of them (Board, Heartbeat,
// OpenTxTap, StartLatched, HaltWriter), the tx tap's frame format both ways (TxTap writes it, ReadTxTap reads
// it), the process name (SetProcName) and the path of the supervisor's raw board stream (RawPath).
//
//	fd 3  BoardInFD   pipe of every byte the board sends (the supervisor is the port's only reader); EOF = it died
//	fd 4  BoardOutFD  the board's serial port itself (the supervisor's open file), for writing
//	fd 5  HeartbeatFD the control loop's heartbeat pipe, when HeartbeatEnv names it (driver/heartbeat)
//	fd 6  TxTapFD     the tx tap: a stamped copy of every board write, when TxTapEnv names it (--capture)
//	env   StartLatchedEnv  the e-stop reason a restarted driver starts latched with
//
// The child never blocks on a pipe to the supervisor: the heartbeat and the tap are written with one raw
// write(2) on a non-blocking pipe, and a full pipe drops the byte or the copy (counted), never the board write.
// Why each rule exists, with the measured times, is in docs/supervisor.md.
package childproc
