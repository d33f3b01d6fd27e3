// Package lidar is the LiDAR reader process (`rosorin-base lidar-reader`, RunProcess, started by the
// supervisor): it reads the COIN-D6 read-only and exclusively (Reader), assembles revolutions into 400-bin
// scans and delivers them to the driver over the driver's control socket (Forwarder), whose scan gate counts
// their arrival. A reader crash never takes the driver down: the supervisor respawns it, and meanwhile the
// scan gate holds software commands.
//
// Spec: chapter 14 (lidar_reader.py): O_RDONLY|O_NOCTTY, TIOCEXCL, raw 230400, VMIN 1; reopen on end of file,
// read errors and 2 s of silence, retrying the open every 0.5 s with a fresh parser; exit non-zero when the
// read loop fails; scans stamped with their first ray; native angles clockwise. The incidents behind these
// rules are in docs/driver.md ("The LiDAR reader").
//
// Under `run --capture DIR` the reader records every read (/serial/lidar/rx) and the /scan decoded from it
// into DIR/lidar-<UTC time>.mcap through a never-blocking segment.Queue (capture.go).
//
// Errata: the exclusive open also takes a flock (root bypasses TIOCEXCL). The 2 s silence is measured per
// read with a read deadline, so a device that trickles one byte per second is not "silent"; a sensor that
// sends garbage keeps the port open and shows as bad checksums.
package lidar
