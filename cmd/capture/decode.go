package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
)

func decodeCommand() *cli.Command {
	return &cli.Command{
		Name:      "decode",
		Usage:     "print every frame or packet of a raw capture as JSON, then a summary line",
		ArgsUsage: "FILE (- for stdin)",
		Description: "Reads a raw byte capture (for example `timeout 2 cat /dev/lidar > lidar.bin`) and prints one JSON\n" +
			"object per valid frame or packet, then {\"kind\":\"summary\",...} with the counts of frames, bad\n" +
			"checksums, unknown function codes, skipped bytes and bytes pending at the end. Garbage and truncated\n" +
			"input are counted, not errors. The file is streamed, never read whole. An MCAP capture (recognised by its\n" +
			"magic) is decoded per raw serial channel: records carry a leading \"topic\" field and each channel ends\n" +
			"with its own summary line; --kind is not needed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Aliases: []string{"k"},
				Usage: "what a raw capture holds: board (controller board frames) or lidar (COIN-D6 packets); not needed for MCAP"},
			&cli.BoolFlag{Name: "summary-only", Aliases: []string{"s"}, Usage: "print only the summary line"},
		},
		Action: decodeAction,
	}
}

func decodeAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return fmt.Errorf("decode takes one capture FILE (or - for stdin), got %d arguments; flags such as --kind go before FILE", c.NArg())
	}
	name := c.Args().First()
	in, closeIn, err := openInput(c, name)
	if err != nil {
		return err
	}
	defer closeIn()
	br := bufio.NewReaderSize(in, 64<<10)
	if head, _ := br.Peek(8); mcapfile.IsMCAP(head) {
		return capture.WriteMCAPJSON(c.App.Writer, br, name, c.Bool("summary-only"))
	}
	if !c.IsSet("kind") {
		return fmt.Errorf("%s is a raw capture: say what it holds with --kind board or --kind lidar", name)
	}
	kind, err := capture.ParseKind(c.String("kind"))
	if err != nil {
		return err
	}
	return capture.WriteJSON(c.App.Writer, br, name, kind, c.Bool("summary-only"))
}

// openInput opens the capture FILE argument, or the app's standard input for "-".
func openInput(c *cli.Context, name string) (io.Reader, func(), error) {
	if name == "-" {
		return c.App.Reader, func() {}, nil
	}
	f, err := capture.OpenFile(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
