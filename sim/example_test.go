package sim

import (
	"context"
	"fmt"
	"os"
)

// Example starts a stand simulator and prints where its devices are. A driver opens BoardPath at
// 1,000,000 baud and LidarPath at 230400 baud exactly as it would open /dev/ttyACM0 and /dev/lidar.
func Example() {
	dir, _ := os.MkdirTemp("", "rosorin-sim-example")
	defer os.RemoveAll(dir)
	s, err := Start(context.Background(), Config{Dir: dir, World: "stand", Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	fmt.Println(s.BoardPath() == dir+"/ttyACM0", s.LidarPath() == dir+"/lidar")
	// Output: true true
}

// ParseFault reads the syntax every entry point shares (Config.Faults, Apply, the control socket, the
// rosorin-sim subcommands); an @DELAY suffix schedules the fault.
func ExampleParseFault() {
	f, err := ParseFault("corrupt=to-board:0.01@5s")
	fmt.Println(f.Kind, f.ToBoard, f.Rate, f.At, err)
	sp, _ := FaultSpecFor(FaultHang)
	fmt.Println(sp.Form, sp.Kind.IsSwitch())
	// Output:
	// corrupt true 0.01 5s <nil>
	// hang[=on|off] true
}
