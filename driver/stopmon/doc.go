// Package stopmon is the stop-performance monitor of issue 35, pure: stop records in, levels and a hold
// out; no goroutines, no clock (times are passed in), no I/O except LoadLimits reading one limits file.
//
// Limits come from evidence or from a person:
//   - the JSON summary of a campaign (stopproof report --campaign --json, proofs/campaign.Summary): per cell
//     (path, direction, speed) the tolerance bound of the time to still and of the travel at the campaign's R
//     and C; the runs' host and driver config hash are checked against the driver's (Identity);
//   - the JSON of stopproof envelope --json (proofs/envelope's jsonReport): per path, direction and tested
//     speed the bounded stopping time and distance; it does not record its runs' host or config hash, so it
//     is refused unless the caller accepts unidentified evidence (Identity.AcceptUnidentified);
//   - the driver's configuration (ConfigLimits, yaml): per kind max_still_s / max_travel_m and optional bands.
//
// A stop at speed v is held against the band of the next tested speed at or above v (conservative: a slower
// stop is held against a faster cell's bound); above the fastest tested speed there is no limit and the record
// says so. Evidence limits are the bound grown by Limits.Margin (10 %) and at least the measurement's stated
// resolution (a time known to 0.1 s cannot be said to be past a bound by less): the same rule as the campaign
// history's tolerance (proofs/campaign.HistoryTolerance).
//
// The Monitor: a counted stop (api.ConfidenceOK, with a limit) past its limit is a WARN; a trend per kind is
// an ERROR: K of the last M counted stops past their limits, or the normal one-sided upper tolerance bound
// (P, Conf) of the last N counted stops' still times (and travels), as a fraction of each stop's limit, past 1.
// In mode hold an ERROR refuses enable until Ack. docs/safety-case.md ("The stop-performance monitor (issue
// 35)") argues the defaults and has the measured false-flag rate.
//
// The tolerance-bound code of proofs/campaign (BoundOrder, the order statistics) is not imported: driver/ may
// not use proofs/ (STYLE.md's layers). The normal tolerance factor here is the Natrella approximation
// (NIST/SEMATECH e-Handbook 7.2.6.3); the distribution-free bound over the last M stops is an order
// statistic, which is exactly the K-of-M rule.
package stopmon
