package testkit

import "testing"

func TestQuietElsewhere(t *testing.T) {
	for _, c := range []struct {
		name, list string
		skip, err  bool
	}{
		{"TestCPU", "", false, false},
		{"TestCPU", "  ", false, false},
		{"TestCPU", "TestTimingDeadman TestCPU", true, false},
		{"TestCPU/sub", "TestCPU", true, false},
		{"TestCPUx", "TestCPU", false, true},
		{"TestOther", "TestCPU TestSimResources", false, true},
	} {
		skip, err := quietElsewhere(c.name, c.list)
		if skip != c.skip || (err != nil) != c.err {
			t.Errorf("quietElsewhere(%q, %q) = %v, %v; want skip %v, error %v", c.name, c.list, skip, err, c.skip, c.err)
		}
	}
}
