package sim

// Results of port.write.
const (
	wrote    = iota
	noClient // nobody has the device open: dropped, as a closed USB tty would
	full     // the pty buffer is full (a stalled client): dropped, never waited for
)
