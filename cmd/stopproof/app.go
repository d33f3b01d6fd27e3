package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/floor"
	"github.com/rosorin/rosorin/proofs/scangate"
	"github.com/rosorin/rosorin/proofs/session"
	"github.com/rosorin/rosorin/proofs/stand"
	"github.com/rosorin/rosorin/proofs/target"
)

// Exit statuses: 0 every line passed, 1 a proof ran and something failed (or timed out), 2 nothing was
// proven (a guard aborted, bad flags, the target could not be started).
const (
	exitFail  = 1
	exitAbort = 2
)

const (
	sectionTarget = "target"
	sectionProof  = "proof"
	sectionOutput = "output"
)

func targetFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "socket", Value: api.DefaultSocket, EnvVars: []string{api.SocketEnv}, Category: sectionTarget,
			Usage: "the running driver's control socket (ignored with --sim)"},
		&cli.StringFlag{Name: "device", Value: "/dev/ttyACM0", Category: sectionTarget,
			Usage: "the board's port, read directly when the driver is gone and the supervisor's raw stream does not answer"},
		&cli.StringFlag{Name: "service-stop", Value: "systemctl stop rosorin-base", Category: sectionTarget,
			Usage: "shell command that stops the driver service (the service path)"},
		&cli.StringFlag{Name: "service-start", Value: "systemctl start rosorin-base", Category: sectionTarget,
			Usage: "shell command that starts it again"},
		&cli.BoolFlag{Name: "sim", Category: sectionTarget,
			Usage: "start a simulated stand robot and rosorin-base against it in a temporary folder; tear everything down at the end"},
		&cli.StringFlag{Name: "sim-fault", Category: sectionTarget,
			Usage: "hand a fault to the simulated robot: NAME at each path's trigger (cleared after the judge; ignore-motor is the broken stop every path must FAIL on), NAME@start from the start"},
		&cli.StringSliceFlag{Name: "sim-param", Category: sectionTarget,
			Usage: "override a driver parameter of the simulated robot, `KEY=VALUE` (repeatable; a negative control: priority_manual=5 puts manual below autonomous and the takeover path must FAIL)"},
		&cli.Int64Flag{Name: "sim-seed", Value: 1, Category: sectionTarget, Usage: "the simulated robot's noise seed"},
		&cli.StringFlag{Name: "sim-contact", Category: sectionTarget,
			Usage: "the simulated robot's contact reflex: act (default), log or off (off: the contact path's negative control, must FAIL)"},
		&cli.StringFlag{Name: "base-bin", Category: sectionTarget,
			Usage: "rosorin-base binary for --sim (default: built from the source tree when run inside it, so the tree's driver is proven and never an installed copy; else next to stopproof, else $PATH); the binary used is printed and recorded"},
		&cli.StringFlag{Name: "evidence-dir", Value: filepath.Join("reports", "evidence"), Category: sectionOutput,
			Usage: "folder of the evidence log (every state line, command, IMU count and verdict), created if missing"},
		&cli.StringFlag{Name: "json", Category: sectionOutput, Usage: "write the machine-readable record to `FILE`"},
		&cli.BoolFlag{Name: "allow-plugged", Category: sectionProof,
			Usage: "drive even though the driver believes the charger is plugged in (only on the stand)"},
	}, ros2Flags()...)
}

func proofFlags() []cli.Flag {
	return []cli.Flag{
		&cli.DurationFlag{Name: "spin", Value: 3 * time.Second, Category: sectionProof, Usage: "spin-up before each trigger"},
		&cli.DurationFlag{Name: "hold", Value: 5 * time.Second, Category: sectionProof,
			Usage: "keep publishing the drive command this long after the trigger (>= the judge's 2 s quiet time + the stop)"},
		&cli.Float64Flag{Name: "threshold", Value: 0.0035, Category: sectionProof,
			Usage: "vibration threshold in rad/s (from characterize; 0.0035 on the robot)"},
		&cli.DurationFlag{Name: "timeout-per-path", Value: 60 * time.Second, Category: sectionProof,
			Usage: "hard timeout of each path: past it the path is TIMEOUT, not FAIL"},
	}
}

func newApp() *cli.App {
	return &cli.App{
		Name:    "stopproof",
		Usage:   "prove from the board's IMU that every stop path stops the wheels (robot on a stand, wheels in the air)",
		Version: version(),
		Description: `With the wheels in the air, spinning wheels shake the body and the board's gyro sees it. stopproof spins
the wheels, triggers one stop path, keeps publishing the drive command, and judges from the gyro when the
wheels are still (vibration below the threshold within 2 s, and quiet for 2 s). Every run writes an evidence
log; every run ends with the wheels disabled, after failures, timeouts and Ctrl-C too.

Safety: robot on a stand with all four wheels in the air, charger unplugged, the power switch in reach.
Stop navigation and anything else that publishes velocity commands first.

Examples:
   stopproof prove --sim ` + stand.PathList() + `
   stopproof prove --sim --sim-fault ignore-motor estop,kill      (the negative control: must FAIL)
   stopproof prove --sim --sim-param priority_manual=5 takeover   (arbitration broken: must FAIL)
   stopproof prove --spin 2s --hold 3s --json proof.json estop,kill
   stopproof characterize
   stopproof scangate --sim
   stopproof scangate --sim --sim-no-lidar-respawn                (must FAIL)
   stopproof floor look --sim
   stopproof floor prove --sim all                                (the floor proof, on the sim's floor world)
   stopproof doctor --rig deploy/ci/sim-rig.yaml                  (a rig file names the robot: docs/rigs.md)
   stopproof prove --rig deploy/ci/sim-rig.yaml estop,kill        (flags beside --rig override the file)

Exit status: 0 when every line passed, 1 when a proof ran and a line failed or timed out, 2 when nothing was
proven (a guard aborted, bad flags, the simulated robot did not start).`,
		// withRig: every command with target flags takes --rig FILE (rig.go), the flags beside it overriding it.
		Commands: withRig([]*cli.Command{proveCommand(), characterizeCommand(), scangateCommand(), floorCommand(), judgeCommand(), reportCommand(), campaignCommand(), doctorCommand(), envelopeCommand(), soakCommand()}),
		// main prints the error and picks the exit status; urfave/cli would otherwise call os.Exit itself.
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

func proveCommand() *cli.Command {
	return &cli.Command{
		Name:      "prove",
		Usage:     "spin, stop, keep commanding and judge each stop path from the IMU",
		ArgsUsage: "PATHS (comma-separated: " + stand.PathList() + ", or all: the stop paths, or holds: the hold paths)",
		Description: `Paths, in the order they run:
` + stand.PathHelp() + `While the driver is gone (kill, service) the board's IMU is read from below the driver: the
supervisor's raw stream, or the port itself.

Examples:
   stopproof prove --sim ` + stand.PathList() + `
   stopproof prove --sim --spin 2s --hold 3s estop,kill
   stopproof prove --sim holds                                 (no motion without a deliberate act: docs/safety-case.md)
   stopproof prove --sim --sim-fault ignore-motor all
   stopproof prove --socket /run/rosorin/base.sock --json proof.json all`,
		Flags:  append(append(targetFlags(), proofFlags()...), noRecordFlag()),
		Action: runProve,
	}
}

func characterizeCommand() *cli.Command {
	return &cli.Command{
		Name:  "characterize",
		Usage: "measure the vibration level of still and spinning wheels and suggest a threshold",
		Description: `Phases: idle (disabled), enabled still, forward 0.1, 0.2 and 0.35 m/s, rotate 1.0 rad/s, with still
phases between; one line per phase with its vibration level, then a suggested threshold.

Examples:
   stopproof characterize --sim
   stopproof characterize --json levels.json`,
		Flags:  append(targetFlags(), proofFlags()...),
		Action: runCharacterize,
	}
}

func scangateCommand() *cli.Command {
	return &cli.Command{
		Name:  "scangate",
		Usage: "live scan-gate check with the wheels disabled: kill the LiDAR reader, watch scan_age, expect a respawn",
		Description: `PASS when the driver saw the scan go stale beyond scan_timeout, the scans came back without help and a new
reader process runs. Prints the seed's JSON line, then PASS or FAIL.

Examples:
   stopproof scangate
   stopproof scangate --sim
   stopproof scangate --sim --sim-no-lidar-respawn     (the driver's respawn switched off: must FAIL)`,
		Flags: append(targetFlags(),
			&cli.BoolFlag{Name: "sim-no-lidar-respawn", Category: sectionTarget,
				Usage: "start the simulated robot's driver with its LiDAR-reader respawn switched off (the negative control)"},
			&cli.DurationFlag{Name: "watch", Value: 9 * time.Second, Category: sectionProof, Usage: "how long scan_age is watched after the kill"},
			noRecordFlag()),
		Action: runScangate,
	}
}

// version is the module's version and VCS revision when the build recorded them.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return basebin.BuildVersion(bi)
}

// open sets up what every subcommand needs (the signal context, the evidence log, the target) from the
// flags; sc is the simulated robot's part that is the command's own (the floor's world and room, the scan
// gate's respawn switch). The flags are checked before ros2Prepare changes the environment.
func open(c *cli.Context, kind string, sc target.SimConfig) (*session.Session, error) {
	if err := checkSimContact(c); err != nil {
		return nil, err
	}
	if err := checkSimParams(c); err != nil {
		return nil, err
	}
	if c.String("sim-room") != "" && !c.Bool("sim") {
		return nil, cli.Exit("--sim-room needs --sim", exitAbort)
	}
	if err := ros2Prepare(c); err != nil {
		return nil, err
	}
	lc := target.DefaultLiveConfig()
	lc.Socket, lc.Device, lc.ServiceStop, lc.ServiceStart = c.String("socket"), c.String("device"), c.String("service-stop"), c.String("service-start")
	sc.BaseBin, sc.Seed, sc.Fault, sc.Contact = c.String("base-bin"), c.Int64("sim-seed"), c.String("sim-fault"), c.String("sim-contact")
	sc.Params = c.StringSlice("sim-param")
	s, err := session.Open(session.Config{
		Kind: kind, EvidenceDir: c.String("evidence-dir"),
		CommandLine: fmt.Sprintf("stopproof %s: %s", version(), strings.Join(os.Args, " ")),
		Sim:         c.Bool("sim"), Simulated: sc, Live: lc, Out: c.App.Writer, Record: recordWanted(c),
	})
	if err != nil {
		return nil, cli.Exit(err.Error(), exitAbort)
	}
	if err := ros2Wrap(c, s); err != nil {
		s.Close()
		return nil, cli.Exit(err.Error(), exitAbort)
	}
	return s, nil
}

// stepsArg reads the PATHS arguments (comma-separated; several arguments are joined) with parse; example
// is what the refusal of none suggests.
func stepsArg[S any](c *cli.Context, example string, parse func(string) ([]S, error)) ([]S, error) {
	list := strings.Join(c.Args().Slice(), ",")
	if strings.TrimSpace(list) == "" {
		return nil, cli.Exit("which stop paths? e.g. "+example, exitAbort)
	}
	steps, err := parse(list)
	if err != nil {
		return nil, cli.Exit(err.Error(), exitAbort)
	}
	return steps, nil
}

func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the limits' rules read "<=", not "\u003c="
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--json: %w", err)
	}
	return nil
}

func proveOptions(c *cli.Context, s *session.Session) (stand.Options, error) {
	o := stand.DefaultOptions()
	o.Spin, o.Hold, o.PathTimeout = c.Duration("spin"), c.Duration("hold"), c.Duration("timeout-per-path")
	o.Params.Threshold = c.Float64("threshold")
	o.AllowPlugged = c.Bool("allow-plugged")
	o.Out = c.App.Writer
	if s != nil {
		o.Evidence, o.Record = s.Evidence, s.Recording
	}
	if err := o.Validate(); err != nil {
		return o, err
	}
	if min := o.Spin + o.Hold + 10*time.Second; o.PathTimeout < min {
		return o, fmt.Errorf("--timeout-per-path %v is shorter than spin %v + hold %v + 10 s for the driver to answer", o.PathTimeout, o.Spin, o.Hold)
	}
	return o, nil
}

func runProve(c *cli.Context) error {
	steps, err := stepsArg(c, "stopproof prove --sim "+stand.PathList(), stand.ParsePaths)
	if err != nil {
		return err
	}
	if _, err := proveOptions(c, nil); err != nil { // check the flags before starting anything
		return cli.Exit(err.Error(), exitAbort)
	}
	s, err := open(c, "stop_proof_stand", target.SimConfig{})
	if err != nil {
		return err
	}
	defer s.Close()
	o, _ := proveOptions(c, s)
	rep, err := stand.Prove(s.Ctx, s.Target, steps, o)
	if rep == nil {
		return finish(c, nil, err, nil)
	}
	rep.Version = version()
	attachRecord(c, s, rep)
	return finish(c, rep, err, rep.AllPassed)
}

// finish writes the --json record (when there is one) and turns the run's outcome into the exit status:
// exitAbort when nothing was proven (an abort says why itself; another error is printed), exitFail when a line
// failed, 0 when passed() says every line passed.
func finish(c *cli.Context, record any, err error, passed func() bool) error {
	return finishWith(c, record, err, func() int {
		if passed == nil || !passed() {
			return exitFail
		}
		return 0
	})
}

// finishWith is finish with the exit status of a run that was not aborted given by status.
func finishWith(c *cli.Context, record any, err error, status func() int) error {
	if record != nil {
		if jerr := writeJSON(c.String("json"), record); jerr != nil {
			fmt.Fprintln(c.App.ErrWriter, jerr)
		}
	}
	switch {
	case errors.Is(err, stand.ErrAborted), errors.Is(err, scangate.ErrAborted), errors.Is(err, floor.ErrAborted):
		return cli.Exit("", exitAbort)
	case err != nil:
		return cli.Exit(err.Error(), exitAbort)
	}
	if code := status(); code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

func runCharacterize(c *cli.Context) error {
	o, err := proveOptions(c, nil)
	if err != nil {
		return cli.Exit(err.Error(), exitAbort)
	}
	s, err := open(c, "stop_proof_characterize", target.SimConfig{})
	if err != nil {
		return err
	}
	defer s.Close()
	o.Evidence = s.Evidence
	cr, err := stand.Characterize(s.Ctx, s.Target, stand.DefaultPhases(), o)
	if cr == nil {
		return finish(c, nil, err, nil)
	}
	cr.Version = version()
	return finish(c, cr, err, cr.OK)
}

func runScangate(c *cli.Context) error {
	s, err := open(c, scangate.RecordingKind, target.SimConfig{NoLidarRespawn: c.Bool("sim-no-lidar-respawn")})
	if err != nil {
		return err
	}
	defer s.Close()
	o := scangate.DefaultOptions()
	o.Watch, o.Out, o.Evidence, o.Record = c.Duration("watch"), c.App.Writer, s.Evidence, s.Recording
	rep, err := scangate.Run(s.Ctx, s.Target, o)
	if rep == nil {
		return finish(c, nil, err, nil)
	}
	attachRecord(c, s, rep)
	return finish(c, rep, err, rep.Passed)
}
