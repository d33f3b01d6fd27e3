//go:build unix

package testkit

import "testing"

// TestIsFuzzWorker: a fuzz worker's command line is told from a coordinator's and a plain run's.
func TestIsFuzzWorker(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"x.test", "-test.fuzzworker", "-test.run=^$"}, true},
		{[]string{"x.test", "-test.fuzzworker=true"}, true},
		{[]string{"x.test", "-test.fuzz=^FuzzX$", "-test.fuzztime=3s"}, false},
		{[]string{"x.test", "-test.count=1"}, false},
	} {
		if got := isFuzzWorker(c.args); got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
}
