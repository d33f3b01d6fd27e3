// Package proofrec is a proof run's MCAP recording (docs/reports.md): Writer records the run's events,
// every evidence line, the judges' inputs and the IMU samples they read (each once), and the JSON record;
// Read reads a finished or cut file back for a re-judge; AuditFile counts repeated messages and steps back in
// log time per channel.
package proofrec
