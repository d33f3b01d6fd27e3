package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rosorin/rosorin/capture"
	"github.com/urfave/cli/v2"
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
		f, err := openCapture(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}

	out := bufio.NewWriterSize(c.App.Writer, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	summaryOnly := c.Bool("summary-only")
	sum, err := capture.Decode(in, kind, func(r capture.Record) error {
		if summaryOnly {
			return nil
		}
		return enc.Encode(r)
	})
	if err != nil {
		_ = out.Flush() // the records decoded so far are still worth seeing
		return fmt.Errorf("decode %s: %w", name, err)
	}
	if err := enc.Encode(sum); err != nil {
		return fmt.Errorf("writing the summary: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}

// openCapture opens a capture file, turning the common mistakes into messages that say what to do.
func openCapture(name string) (*os.File, error) {
	st, err := os.Stat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("capture file %s does not exist; check the path, or pass - to read stdin", name)
	case err != nil:
		return nil, fmt.Errorf("cannot read capture file: %w", err)
	case st.IsDir():
		return nil, fmt.Errorf("%s is a directory; pass a capture file inside it", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot open capture file: %w", err)
	}
	return f, nil
}
