// Package session sets up one proof run from a command's flags (Open): the signal-cancelled context, the
// evidence log, the MCAP recording beside it (package proofrec) and the target (live or simulated), and
// tears them down in order (Close).
package session
