package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/proofs/proofrec"
	"github.com/rosorin/rosorin/proofs/scangate"
	"github.com/rosorin/rosorin/proofs/stand"
)

// exitDiffers: a re-judge that does not agree with the live run (the judge or its inputs changed).
const exitDiffers = 3

func judgeCommand() *cli.Command {
	return &cli.Command{
		Name:      "judge",
		Usage:     "judge recorded proof runs again offline, through the live run's judges, and compare with the live verdicts",
		ArgsUsage: "RECORDING.mcap...",
		Description: `Every stopproof prove and scangate run records itself beside its evidence log (same name, .mcap; --no-record
turns it off): the IMU samples each judge read, the judges' times and limits, the events and the --json record.
judge reads such a file (finished or cut), calls the same judge functions on the same numbers, prints the result
lines and the table as the live run did, and says whether every verdict and time equals the live run's.
The output depends only on the file: two runs print the same bytes.

Examples:
   stopproof judge reports/evidence/stop_proof_stand_20261201_120000.mcap
   stopproof judge testdata/captures/stand-sim-*.mcap
   stopproof judge --json rejudged.json run.mcap

Exit status: 0 every line passed and agrees with the live run, 1 a line failed (as it did live), 2 a file could
not be read, 3 a re-judged line differs from the live run.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "json", Category: sectionOutput, Usage: "write the re-judged record (of the last stand run) to `FILE`"},
		},
		Action: runJudge,
	}
}

// judgeFile re-judges one recording and prints it; it reports whether every line passed and whether the
// re-judge agrees with the live run.
func judgeFile(w io.Writer, path string) (passed, agrees bool, rep *stand.Report, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, false, nil, err
	}
	defer f.Close()
	pf, err := proofrec.Read(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return false, false, nil, fmt.Errorf("%s: %w", path, err)
	}
	if pf.Meta["kind"] == scangate.RecordingKind {
		return judgeScangate(w, path, pf)
	}
	rj, err := stand.Rejudge(pf)
	if err != nil {
		return false, false, nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := stand.WriteRejudged(w, path, pf, rj); err != nil {
		return false, false, nil, err
	}
	r := rj.Report
	return r.Planned > 0 && r.Passed == r.Planned && r.Aborted == "", len(rj.Differences) == 0, r, nil
}

func judgeScangate(w io.Writer, path string, pf *proofrec.File) (bool, bool, *stand.Report, error) {
	rj, err := scangate.RejudgeRecording(pf)
	if err != nil {
		return false, false, nil, fmt.Errorf("%s: %w", path, err)
	}
	return rj.Passed(), rj.Agrees(), nil, scangate.WriteRejudged(w, path, pf, rj)
}

func runJudge(c *cli.Context) error {
	files := c.Args().Slice()
	if len(files) == 0 {
		return cli.Exit("which recordings? e.g. stopproof judge reports/evidence/stop_proof_stand_*.mcap", exitAbort)
	}
	allPassed, allAgree, unreadable := true, true, 0
	var last *stand.Report
	for i, path := range files {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		passed, agrees, rep, err := judgeFile(c.App.Writer, path)
		if err != nil {
			fmt.Fprintf(c.App.ErrWriter, "stopproof judge: %v\n", err)
			unreadable++
			continue
		}
		if rep != nil {
			last = rep
		}
		allPassed, allAgree = allPassed && passed, allAgree && agrees
	}
	if last != nil {
		if err := writeJSON(c.String("json"), last); err != nil {
			fmt.Fprintln(c.App.ErrWriter, err)
		}
	}
	switch {
	case unreadable > 0:
		return cli.Exit(fmt.Sprintf("%d of %d recordings could not be read", unreadable, len(files)), exitAbort)
	case !allAgree:
		return cli.Exit("the re-judge differs from the live run", exitDiffers)
	case !allPassed:
		return cli.Exit("", exitFail)
	}
	return nil
}
