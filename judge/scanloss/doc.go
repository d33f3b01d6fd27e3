// Package scanloss judges the live check of the LiDAR-loss path (chapter 19's scripts/tests/scan_gate_live.py)
// with the wheels disabled: the runner kills the LiDAR reader, watches the driver's own view of the scan
// (state.scan_age) and the reader coming back by itself, and hands what it saw to Judge. Judge is pure: no
// I/O, no clock, no processes; times are seconds since the kill.
//
// # What it follows
//
// The seed's rule: PASS = the driver saw the scan go stale beyond its scan_timeout (worst scan_age > 0.5 s),
// scans came back without anybody's help (a scan_age < 0.3 s later than 1 s after the kill), and a LiDAR
// reader runs again under a new pid. The result is printed as the seed's JSON line, then PASS or FAIL:
//
//	{"scan_age_before": 0.07, "killed_pids": ["7806"], "worst_scan_age_s": 2.97, "scans_back_after_s": 3.03,
//	 "reader_pids_now": ["8146"], "state_blocked": "disabled"}
//	PASS
//
// state_blocked reads "disabled", not "no scan", because disabled comes first in the gate's reasons: this check
// runs with the wheels disabled, and that the wheels really stop while driving is the stand proof's scanloss
// path (package vibration).
//
// # Differences from the seed (each makes the check stricter)
//
//   - Pids are numbers: the seed printed pgrep's strings (["7806"]); the JSON field names are the seed's.
//   - Scans count as back only after they went stale: the seed took the first young scan_age after 1 s, even
//     one seen before the scan went stale, so a late kill could pass without ever coming back.
//   - The killed pids must all be gone: the seed compared the pid lists (new != pids), which passes when the
//     old reader still runs beside a new one.
//   - The scan must have been fresh before the kill (scan_age_before known and not above scan_timeout): if
//     the scan was stale already, going stale proves nothing about the kill.
//   - A scan_timeout of 0 means the gate is off in the driver; the check then FAILs instead of calling any
//     scan_age stale.
//   - The JSON adds "pass" and "reason" (and "dropped" when observations were unusable) to the seed's fields.
package scanloss
