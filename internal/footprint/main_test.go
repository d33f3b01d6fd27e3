package footprint

import (
	"os"
	"testing"

	"github.com/rosorin/rosorin/internal/testkit"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testkit.Cleanup()
	os.Exit(code)
}
