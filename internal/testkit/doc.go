// Package testkit is the shared support of the toolkit's tests: the race detector's presence and the widened
// time bounds it calls for, binaries built once per test run, a locked buffer for child-process output,
// duration quantiles and the module root. It is imported only by tests.
package testkit
