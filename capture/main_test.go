package capture

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine a test starts (queue writers, relays, decoders) must be gone when the tests end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
