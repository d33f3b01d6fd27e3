package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture"
)

func decodeCommand() *cli.Command {
	return &cli.Command{
		Name:      "decode",
		Usage:     "print every frame or packet of a raw capture as JSON, then a summary line",
		ArgsUsage: "FILE (- for stdin)",
		Description: "Reads a raw byte capture (for example `timeout 2 cat /dev/lidar > lidar.bin`) and prints one JSON\n" +
			"object per valid frame or packet, then {\"kind\":\"summary\",...} with the counts of frames, bad\n" +
			"checksums, unknown function codes, skipped bytes and bytes pending at the end. Garbage and truncated\n" +
			"input are counted, not errors. The file is streamed, never read whole.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Aliases: []string{"k"}, Required: true,
				Usage: "what the capture holds: board (controller board frames) or lidar (COIN-D6 packets)"},
			&cli.BoolFlag{Name: "summary-only", Aliases: []string{"s"}, Usage: "print only the summary line"},
		},
		Action: decodeAction,
	}
}

func decodeAction(c *cli.Context) error {
	kind, err := capture.ParseKind(c.String("kind"))
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return fmt.Errorf("decode takes one capture FILE (or - for stdin), got %d arguments; flags go before FILE", c.NArg())
	}
	name := c.Args().First()
	in := c.App.Reader
	if name != "-" {
		f, err := capture.OpenFile(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	return capture.WriteJSON(c.App.Writer, in, name, kind, c.Bool("summary-only"))
}
