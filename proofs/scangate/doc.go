// Package scangate runs chapter 19's live scan-gate check (scripts/tests/scan_gate_live.py) against a
// target.Target: with the wheels DISABLED (nothing moves), SIGKILL the LiDAR reader named in the driver's
// state, watch the driver's own scan_age for about 9 s, read the reader's pid again, and judge with package
// scangate. The seed's JSON line and PASS/FAIL are printed.
//
// Differences from the seed: the reader's pid comes from the driver's state record (the reader's connection),
// not from pgrep on a command line; the pids now are checked to be alive processes. With the driver's
// reader respawn switched off (rosorin-base run --no-lidar-respawn) the check must FAIL: that is its negative
// control.
package scangate
