package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/proofs/session"
)

func noRecordFlag() cli.Flag {
	return &cli.BoolFlag{Name: "no-record", Category: sectionOutput,
		Usage: "do not record the run (by default an MCAP recording lands beside the evidence log, same name, .mcap: what stopproof judge re-judges)"}
}

// recordWanted: the commands that define --no-record record unless it is given.
func recordWanted(c *cli.Context) bool {
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if n == "no-record" {
				return !c.Bool("no-record")
			}
		}
	}
	return false
}

// attachRecord writes the run's JSON record into its recording (the same bytes --json writes).
func attachRecord(c *cli.Context, s *session.Session, record any) {
	if s == nil || s.Recording == nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(record); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "recording: the JSON record: %v\n", err)
		return
	}
	if err := s.Recording.Attach(b.Bytes()); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "recording: attaching the JSON record: %v\n", err)
	}
}
