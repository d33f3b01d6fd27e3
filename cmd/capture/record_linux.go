//go:build linux

package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:  "record",
		Usage: "record a serial device passively (read-only) into a crash-safe MCAP capture",
		Description: "Opens DEVICE read-only, sets raw mode and BAUD, and records every read as one message on\n" +
			"/serial/KIND/rx (KIND board also gets decoded IMU frames on /imu,\n" +
			"sensor_msgs/msg/Imu, and battery reports on /battery, sensor_msgs/msg/BatteryState). Until it stops\n" +
			"the data is in OUT.part, flushed every 100 ms and fsync'd every second; on SIGINT/SIGTERM, --duration or\n" +
			"the device closing, OUT.part is finished into OUT (indexed, with statistics). After a SIGKILL or power\n" +
			"loss run `capture recover OUT.part OUT`. A port held exclusively (the supervisor's TIOCEXCL or flock) is\n" +
			"refused: record from the process that owns it instead.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "device", Required: true, Usage: "serial device or pty to read"},
			&cli.IntFlag{Name: "baud", Value: 1000000, Usage: "line speed"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "MCAP file to write (OUT.part while recording)"},
			&cli.StringFlag{Name: "kind", Value: "board", Usage: "what the device carries: board or lidar"},
			&cli.DurationFlag{Name: "duration", Usage: "stop after this long (0: until SIGINT/SIGTERM)"},
		},
		Action: recordAction,
	}
}

var bauds = map[int]uint32{9600: unix.B9600, 19200: unix.B19200, 38400: unix.B38400, 57600: unix.B57600,
	115200: unix.B115200, 230400: unix.B230400, 460800: unix.B460800, 500000: unix.B500000,
	576000: unix.B576000, 921600: unix.B921600, 1000000: unix.B1000000, 1500000: unix.B1500000,
	2000000: unix.B2000000, 3000000: unix.B3000000}

// holders lists the processes other than this one that have path open, as "pid (comm)".
func holders(path string) []string {
	want, err := filepath.EvalSymlinks(path)
	if err != nil {
		want = path
	}
	procs, _ := os.ReadDir("/proc")
	var out []string
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", p.Name(), "fd"))
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join("/proc", p.Name(), "fd", fd.Name())); err == nil && l == want {
				comm, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "comm"))
				out = append(out, fmt.Sprintf("pid %d (%s)", pid, strings.TrimSpace(string(comm))))
				break
			}
		}
	}
	return out
}

func heldError(dev string, why string) error {
	who := holders(dev)
	by := "another process"
	if len(who) > 0 {
		by = strings.Join(who, ", ")
	}
	return fmt.Errorf("%s is held exclusively (%s) by %s; capture record only listens and would steal its bytes. "+
		"Record from the owner instead: rosorin-base run --capture DIR, or tee the raw stream it reads", dev, why, by)
}

// openPassive opens dev read-only in raw mode with reads that return after at most 100 ms.
func openPassive(dev string, baud int) (int, error) {
	speed, ok := bauds[baud]
	if !ok {
		return -1, fmt.Errorf("baud %d is not a standard rate; use one of 9600 ... 3000000", baud)
	}
	fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.EBUSY):
		return -1, heldError(dev, "TIOCEXCL")
	case errors.Is(err, unix.ENOENT):
		return -1, fmt.Errorf("device %s does not exist; check the path (ls -l /dev/ttyACM* /dev/lidar)", dev)
	case err != nil:
		return -1, fmt.Errorf("cannot open %s: %w", dev, err)
	}
	if err := unix.Flock(fd, unix.LOCK_SH|unix.LOCK_NB); errors.Is(err, unix.EWOULDBLOCK) {
		unix.Close(fd)
		return -1, heldError(dev, "flock")
	}
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is not a serial device or pty: %w", dev, err)
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CBAUD
	t.Cflag |= unix.CS8 | unix.CREAD | unix.CLOCAL | speed
	t.Ispeed, t.Ospeed = speed, speed
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 0, 1
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("cannot set %s to raw %d baud: %w", dev, baud, err)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return v
}

func recordAction(c *cli.Context) error {
	if c.NArg() != 0 {
		return fmt.Errorf("record takes no arguments (got %q): use --device, --baud and --out", c.Args().Slice())
	}
	kind, err := capture.ParseKind(c.String("kind"))
	if err != nil {
		return err
	}
	dev, out := c.String("device"), c.String("out")
	if _, err := os.Stat(out); err == nil {
		return fmt.Errorf("%s exists; pick a new --out file", out)
	}
	fd, err := openPassive(dev, c.Int("baud"))
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if others := holders(dev); len(others) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "capture record: warning: %s is also open by %s; bytes they read are not recorded\n",
			dev, strings.Join(others, ", "))
	}
	host, _ := os.Hostname()
	rec, err := mcapfile.Create(out, mcapfile.Options{Metadata: map[string]string{
		"device": dev, "baud": strconv.Itoa(c.Int("baud")), "host": host, "version": version(),
		"kind": string(kind), "recorder": "capture record (passive)"}})
	if err != nil {
		return err
	}
	topic := "/serial/" + string(kind) + "/rx"
	rx, err := rec.RawChannel(topic, string(kind))
	var imu, battery *mcapfile.Channel
	if err == nil && kind == capture.Board {
		imu, err = rec.MessageChannel("/imu", "sensor_msgs/msg/Imu")
	}
	if err == nil && kind == capture.Board {
		battery, err = rec.MessageChannel("/battery", "sensor_msgs/msg/BatteryState")
	}
	if err != nil {
		rec.Close()
		return err
	}
	dec, _ := capture.NewDecoder(kind)
	var when time.Time
	var werr error
	emit := func(r capture.Record) {
		br, ok := r.(*capture.BoardRecord)
		if !ok || imu == nil || werr != nil {
			return
		}
		switch v := br.Value.(type) {
		case board.IMU:
			werr = rec.WriteMessage(imu, when, imuMessage(when, v))
		case board.Battery:
			werr = rec.WriteMessage(battery, when, batteryMessage(when, v))
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	var deadline time.Time
	if d := c.Duration("duration"); d > 0 {
		deadline = time.Now().Add(d)
	}
	fmt.Fprintf(c.App.ErrWriter, "capture record: %s -> %s (%s while recording)\n", dev, out, rec.PartPath())
	buf := make([]byte, 4096)
	var total, reads uint64
	why := "stopped"
loop:
	for {
		select {
		case s := <-sig:
			why = "signal " + s.String()
			break loop
		default:
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			why = "duration reached"
			break
		}
		n, err := unix.Read(fd, buf)
		if n > 0 {
			when = time.Now()
			if werr = rec.Write(rx, when, buf[:n]); werr == nil {
				dec.Feed(buf[:n], emit)
			}
			if werr != nil {
				break
			}
			total += uint64(n)
			reads++
		}
		if err != nil && !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
			why = "device closed (" + err.Error() + ")"
			break
		}
	}
	if werr != nil {
		fmt.Fprintf(c.App.ErrWriter, "capture record: RECORDING STOPPED: %v\n", werr)
	}
	if err := rec.Close(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "capture record: %s; %d bytes in %d reads written to %s\n", why, total, reads, out)
	return werr
}

// batteryMessage converts a board battery report to sensor_msgs/msg/BatteryState: voltage only, the rest
// NaN (unmeasured, as REP 145/the message's comments ask), technology unknown.
func batteryMessage(t time.Time, v board.Battery) *rosmsg.BatteryState {
	nan := float32(math.NaN())
	return &rosmsg.BatteryState{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "base_link"},
		Voltage: float32(v.Volts()), Temperature: nan, Current: nan, Charge: nan, Capacity: nan,
		DesignCapacity: nan, Percentage: nan, Present: true}
}

const standardGravity = 9.80665

// imuMessage converts a board IMU frame (g, deg/s) to sensor_msgs/msg/Imu (m/s², rad/s), orientation unknown.
func imuMessage(t time.Time, v board.IMU) *rosmsg.Imu {
	m := &rosmsg.Imu{Header: rosmsg.Header{Stamp: rosmsg.TimeFromNanos(t.UnixNano()), FrameID: "imu_link"}}
	m.OrientationCovariance[0] = -1 // REP 145: no orientation estimate
	m.LinearAcceleration = rosmsg.Vector3{X: float64(v.Accel[0]) * standardGravity,
		Y: float64(v.Accel[1]) * standardGravity, Z: float64(v.Accel[2]) * standardGravity}
	d := math.Pi / 180
	m.AngularVelocity = rosmsg.Vector3{X: float64(v.Gyro[0]) * d, Y: float64(v.Gyro[1]) * d, Z: float64(v.Gyro[2]) * d}
	return m
}
