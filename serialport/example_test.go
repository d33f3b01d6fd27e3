package serialport_test

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/serialport"
)

// A refused exclusive open names who holds the port and what to do.
func ExampleBusyError() {
	err := error(&serialport.BusyError{Path: "/dev/ttyACM0", Holders: []serialport.Holder{{PID: 812, Comm: "rosorin-base"}}, Err: unix.EWOULDBLOCK})
	fmt.Println(err)
	fmt.Println(serialport.IsBusy(err))
	// Output:
	// port /dev/ttyACM0 busy (held by pid 812: rosorin-base); stop the other owner or pass --device
	// true
}
