// Package lidar is the LiDAR reader process (`rosorin-base lidar-reader`, started by the supervisor): it reads
// the COIN-D6 read-only and exclusively, assembles revolutions into 400-bin scans and delivers them to the
// driver over the driver's control socket (the scan ingestion stream), whose scan gate counts their arrival.
//
// It runs as its own process so that a reader crash never takes the driver down; the supervisor respawns it
// about 2 s after any exit, and meanwhile the driver's scan gate holds software commands.
//
// Spec: chapter 14 (lidar_reader.py): O_RDONLY|O_NOCTTY, TIOCEXCL, raw 230400, VMIN 1; reopen on end of file,
// read errors and 2 s of silence, retrying the open every 0.5 s with a fresh parser (2026-09-28: a USB
// re-enumeration left the old descriptor silent forever); exit non-zero when the read loop fails unexpectedly
// (a live process with a dead reader thread publishes nothing, forever); scans stamped with the first ray
// (stamping "now" put every scan 100 ms ahead of TF, 2026-09-28 Nav2 collision); native angles clockwise.
// Here the exclusive open also takes a flock (root bypasses TIOCEXCL).
//
// Errata: the 2 s silence is measured per read with a read deadline, so a device that trickles one byte per
// second is not "silent"; a sensor that sends garbage keeps the port open and shows as bad checksums.
package lidar
