// Command capture records, describes, recovers and decodes captures of the robot's serial streams.
//
//	capture decode [--kind board|lidar] FILE   (FILE "-" reads stdin; MCAP needs no --kind)
//	capture record --device D --baud B --out FILE
//	capture tap --device D --link PATH --out FILE
//	capture replay FILE --dir DIR [--rate R] [--loop] [--start T --end T] [--out F] [--compare] [--wait]
//	capture info FILE
//	capture recover IN OUT
//	capture odom FILE   (LiDAR odometry: one JSON line per revolution)
//
// record, tap, replay, info and recover are described in docs/capture.md.
//
// decode prints one JSON object per frame or packet, then one summary line (see package capture for the
// fields). Garbage, truncated or empty input is not an error: it shows up in the counts and the exit
// status is 0. A file that cannot be read (missing, a directory, an I/O error) exits 1 with a message on
// stderr, and no summary line is printed, so a consumer can tell a complete decode from a partial one.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit status; tests call it in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	if err := app.Run(args); err != nil {
		fmt.Fprintln(stderr, "capture:", err)
		if ec, ok := err.(cli.ExitCoder); ok && ec.ExitCode() > 1 {
			return ec.ExitCode() // replay --compare: 3 when the program's writes differ
		}
		return 1
	}
	return 0
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "capture",
		Usage:     "record, describe, recover and decode captures of the controller board and COIN-D6 LiDAR serial streams",
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are printed once by run; the default handler would call os.Exit from inside tests.
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
		Commands:        []*cli.Command{decodeCommand(), infoCommand(), recoverCommand(), recordCommand(), odomCommand(), tapCommand(), replayCommand()},
	}
}
