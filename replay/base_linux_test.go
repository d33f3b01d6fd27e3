package replay_test

import (
	"testing"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/stacktest"
)

// startBase starts bin (`rosorin-base run`, the shared fixture stacktest) on the given board and LiDAR devices
// with the default parameters and its socket and state in dir, and waits (15 s, widened under -race) until
// ready accepts the driver's state; it fails the test naming what with ready's last complaint otherwise. The
// test's cleanup stops it (and shows its log if the test failed); Stop stops it earlier.
func startBase(t *testing.T, bin, dir, device, lidar, what string, ready func(api.State) error) *stacktest.Service {
	t.Helper()
	s, err := stacktest.StartService(stacktest.Options{Bin: bin, Dir: dir, Device: device, Lidar: lidar, Ready: ready})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Cleanup(func() {
		s.Close()
		if t.Failed() {
			t.Logf("rosorin-base log:\n%s", s.Log.String())
		}
	})
	return s
}
