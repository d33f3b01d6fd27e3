// Package campaign runs a stop proof's cells (path x speed x direction) each N times in a seeded, recorded
// interleaving, keeps the campaign's state in a folder run by run (resume after Ctrl-C, a crash or a battery
// swap; shards merged), and states per cell what the runs show: the success-run claim (n = ceil(ln(1-C)/ln R)
// consecutive successes, ASTM's A-UGV test methods), the worst case and a nonparametric upper tolerance bound,
// with the conditions on record.
package campaign
