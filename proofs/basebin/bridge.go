package basebin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// BridgePackage is the ROS 2 bridge's command (rosorin-ros2), a binary of its own so that rosorin-base never
// loads libddsc; `rosorin-base run --ros2` finds it beside itself.
const BridgePackage = "github.com/rosorin/rosorin/cmd/rosorin-ros2"

// wantBridge: the service will run with --ros2 (ROSORIN_ROS2 set true, as stopproof --ros2 --sim sets it).
func wantBridge() bool {
	on, _ := strconv.ParseBool(os.Getenv("ROSORIN_ROS2"))
	return on
}

// buildBridge builds BridgePackage from the source tree into dir, beside the rosorin-base built there, with
// the same GOFLAGS (stopproof --ros2 sets -tags=ros2).
func buildBridge(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "rosorin-ros2")
	if o, err := exec.CommandContext(ctx, "go", "build", "-o", bin, BridgePackage).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", BridgePackage, err, bytes.TrimSpace(o))
	}
	return bin, nil
}
