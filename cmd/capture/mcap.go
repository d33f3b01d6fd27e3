package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe an MCAP capture: channels, duration, bytes, messages, rates, gaps, how the file ended",
		ArgsUsage: "FILE",
		Description: "Reads the file linearly, so a cut file (SIGKILL, power loss) is described up to the cut. \"ended\" is\n" +
			"clean (closed by the recorder), recovered (written by capture recover), closed (a .part whose close did\n" +
			"not finish) or cut (exit status 0 too: the description is what could be read; run capture recover).",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "gap", Value: 500 * time.Millisecond, Usage: "report silences on a channel longer than this"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("info takes one MCAP FILE, got %d arguments; flags such as --gap go before FILE", c.NArg())
			}
			name := c.Args().First()
			if f, err := capture.OpenFile(name); err != nil {
				return err
			} else {
				f.Close()
			}
			info, err := mcapfile.DescribeFile(name, c.Duration("gap"))
			if err != nil {
				return fmt.Errorf("%w (a raw byte capture is read by capture decode --kind board|lidar)", err)
			}
			f, err := capture.OpenFile(name)
			if err != nil {
				return err
			}
			defer f.Close()
			sums, _, err := capture.DecodeMCAP(f, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			printInfo(c.App.Writer, name, info, c.Duration("gap"))
			printFrames(c.App.Writer, sums, info)
			return nil
		},
	}
}

func printInfo(w io.Writer, name string, info *mcapfile.Info, gap time.Duration) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("file:      %s\n", name)
	p("profile:   %s (%s)\n", info.Profile, info.Library)
	p("size:      %d bytes\n", info.Size)
	p("ended:     %s", info.Ended)
	if info.Cut != nil {
		p(" at byte %d of %d (%d bytes unreadable: %v)", info.Good, info.Size, info.Size-info.Good, info.Cut)
	}
	p("\n")
	if info.Messages > 0 {
		p("start:     %s\n", time.Unix(0, int64(info.Start)).UTC().Format(time.RFC3339Nano))
	}
	p("duration:  %s\n", info.Duration())
	p("messages:  %d\n", info.Messages)
	for _, m := range info.Metadata {
		if m.Name == mcapfile.Rosbag2Meta {
			p("metadata:  %s: %s (%d bytes of rosbag2 metadata.yaml, for ros2 bag info/play)\n", m.Name,
				mcapfile.Rosbag2MetaKey, len(m.Metadata[mcapfile.Rosbag2MetaKey]))
			continue
		}
		keys := make([]string, 0, len(m.Metadata))
		for k := range m.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+"="+m.Metadata[k])
		}
		p("metadata:  %s: %s\n", m.Name, strings.Join(kv, " "))
	}
	p("channels:\n")
	for _, ch := range info.Channels {
		bps := 0.0
		if d := ch.Duration().Seconds(); d > 0 {
			bps = float64(ch.Bytes) / d
		}
		p("  %-20s %-32s %8d msgs %10d bytes %9.1f msg/s %11.0f B/s seq-gaps %d gaps>%s %d\n",
			ch.Topic, ch.Schema, ch.Messages, ch.Bytes, ch.Rate(), bps, ch.SeqGaps, gap, len(ch.Gaps))
		for i, g := range ch.Gaps {
			if i == 10 {
				p("    ... %d more\n", len(ch.Gaps)-10)
				break
			}
			p("    gap %s from %s\n", time.Duration(g.To-g.From), time.Unix(0, int64(g.From)).UTC().Format(time.RFC3339Nano))
		}
	}
}

// printFrames prints what the decoders found on each raw serial channel: frames, their rate over the
// channel's span, the parser's rejects, and the frames per function (board) or revolutions (LiDAR).
func printFrames(w io.Writer, sums []capture.TopicSummary, info *mcapfile.Info) {
	if len(sums) > 0 {
		fmt.Fprintf(w, "frames:\n")
	}
	spans := map[string]time.Duration{}
	for _, c := range info.Channels {
		spans[c.Topic] = c.Duration()
	}
	for _, s := range sums {
		rate := 0.0
		if d := spans[s.Topic].Seconds(); d > 0 {
			rate = float64(s.Records) / d
		}
		fmt.Fprintf(w, "  %-20s %-5s %8d frames %9.1f/s %6d bad checksum %6d skipped bytes %6d pending bytes %6d bad payload\n",
			s.Topic, s.Kind, s.Records, rate, s.BadChecksum, s.SkippedBytes, s.PendingBytes, s.BadPayload)
		var parts []string
		if s.Kind == capture.Lidar {
			parts = append(parts, fmt.Sprintf("revolutions %d", s.RingStarts))
		}
		names := make([]string, 0, len(s.ByFunc))
		for k := range s.ByFunc {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			parts = append(parts, fmt.Sprintf("%s %d", k, s.ByFunc[k]))
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "    %s\n", strings.Join(parts, ", "))
		}
	}
}

func recoverCommand() *cli.Command {
	return &cli.Command{
		Name:      "recover",
		Usage:     "turn a cut or SIGKILLed MCAP capture (a .part file) into a complete, indexed one",
		ArgsUsage: "IN OUT",
		Description: "Reads IN to its last complete record, writes OUT chunked and indexed with statistics and a\n" +
			"rosorin.recovery metadata record, and prints what was kept and dropped. IN is never modified.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return fmt.Errorf("recover takes IN and OUT, got %d arguments", c.NArg())
			}
			in, out := c.Args().Get(0), c.Args().Get(1)
			if in == out {
				return fmt.Errorf("recover writes a new file: OUT must differ from IN")
			}
			f, err := capture.OpenFile(in)
			if err != nil {
				return err
			}
			f.Close()
			rep, err := mcapfile.RewriteFile(in, out)
			if err != nil {
				return fmt.Errorf("recover %s: %w", in, err)
			}
			last := "none"
			if rep.Messages > 0 {
				last = time.Unix(0, int64(rep.LastLogTime)).UTC().Format(time.RFC3339Nano)
			}
			fmt.Fprintf(c.App.Writer, "recovered %s -> %s: %s; last message at %s\n", in, out, rep, last)
			return nil
		},
	}
}
