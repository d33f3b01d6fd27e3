package supervisor_test

import (
	"fmt"

	"github.com/rosorin/rosorin/driver/childproc"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// The supervisor serves two files next to the driver's control socket: the board's raw bytes and its status.
func ExampleStatusPath() {
	sock := "/run/rosorin/base.sock"
	fmt.Println(childproc.RawPath(sock))
	fmt.Println(supervisor.StatusPath(sock))
	// Output:
	// /run/rosorin/base.sock.raw
	// /run/rosorin/base.sock.status
}
