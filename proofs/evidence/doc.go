// Package evidence is a proof run's evidence log (Log): every state line, command, sample count and verdict,
// one timestamped line each, in time order; SetTap copies each line into the run's recording (package
// proofrec).
package evidence
