package driver_test

import (
	"context"
	"log"
	"os"
	"os/signal"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/config"
)

// Run on a port opened by the caller (the supervisor normally passes a pipe as BoardIn and the port as
// BoardOut). Run writes a stop frame first, serves the socket, and writes two stop frames on Ctrl-C.
func ExampleRun() {
	port, err := os.OpenFile("/dev/ttyACM0", os.O_RDWR, 0) // raw mode and exclusivity: see serialport
	if err != nil {
		log.Fatal(err)
	}
	defer port.Close() // whoever opens the port closes it; Run never does
	cfg, _, err := config.Load("/etc/rosorin/base.yaml")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := driver.Run(ctx, driver.Options{Config: cfg, BoardIn: port, BoardOut: port,
		SocketPath: "/run/rosorin/base.sock"}); err != nil {
		log.Fatal(err) // the board went away: reopen and run again
	}
}
