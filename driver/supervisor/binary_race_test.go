//go:build race

package supervisor_test

// The end-to-end tests (real processes, signals and timing) carry //go:build !race: under the race detector on
// a 2-core machine their millisecond bounds would measure the detector. They run in CI's plain `go test` step.
func needsBinary() bool { return false }
