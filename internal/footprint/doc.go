// Package footprint measures what the driver service costs the robot's computer: CPU, wake-ups (context
// switches), resident memory and file descriptors of `rosorin-base run` and every process under it, from
// /proc (proc(5)). Its benchmark (footprint_test.go, only with -bench) runs the whole service against the
// sim's floor world, enabled and driving; docs/footprint.md has the figures and how to run it.
//
// Errata: context switches are summed over the living threads only; a thread that exited inside the window
// takes its count with it (Go keeps its threads, so this is rare).
package footprint
