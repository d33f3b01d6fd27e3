package doctor

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/supervisor"
)

// youngDriver: a driver up for less than this is given the rest of it before its rates are read.
const youngDriver = 2 * time.Second

// checkService: the unit, the socket, the supervisor's status, the driver's view of the board and LiDAR, and
// the e-stop latch.
func checkService(r *Report, o Options) {
	const area = "service"
	if o.Unit != "" {
		checkUnit(r, o.Unit)
	}
	if o.Socket == "" {
		r.add(area, "driver socket", Skip, "no socket given", "")
		return
	}
	if !exists(o.Socket) {
		r.add(area, "driver socket", Fail, o.Socket+" does not exist: the driver is not running",
			"start it: sudo systemctl start rosorin-base (journalctl -u rosorin-base -n 50 says why it stopped), or rosorin-base run")
		return
	}
	cl := api.NewClient(o.Socket)
	defer cl.CloseIdle()
	ctx, cancel := context.WithTimeout(context.Background(), youngDriver+2*time.Second)
	defer cancel()
	st, err := cl.State(ctx)
	if err == nil && st.UptimeS < youngDriver.Seconds() {
		// The driver's rates are over its last second: let a driver that has just started fill it.
		_ = o.Clock.Sleep(ctx, youngDriver-time.Duration(st.UptimeS*float64(time.Second)))
		st, err = cl.State(ctx)
	}
	if err != nil {
		r.add(area, "driver socket", Fail, "no answer on "+o.Socket+": "+err.Error(),
			"a 403 means this user lacks the observe role (--observe-group); otherwise the driver is down or stuck: rosorin-base supervisor-status")
	} else {
		r.add(area, "driver socket", Pass, fmt.Sprintf("driver pid %d answers; up %.0f s, enabled %v, blocked: %s",
			st.PIDs.Driver, st.UptimeS, st.Enabled, orDash(st.Blocked)), "")
	}
	checkSupervisor(r, o)
	if err != nil {
		return
	}
	judgeLink(r, st)
	if o.Lidar != "" {
		judgeScans(r, st)
	}
	if st.EStop != nil {
		r.add(area, "e-stop latch", Fail, "LATCHED: "+*st.EStop+" (nothing moves until a person resets it)",
			"find why it latched, then: rosorin-base reset (needs the safety role); the latch survives restarts (estop.json)")
	} else {
		r.add(area, "e-stop latch", Pass, "not latched", "")
	}
	switch {
	case st.Plugged == nil:
		r.add(area, "charger", Skip, "not known yet (the driver learns it from a voltage step)", "")
	case *st.Plugged:
		r.add(area, "charger", Warn, fmt.Sprintf("plugged in (battery %.2f V)", float64(st.BatteryMV)/1000),
			"unplug the charger before driving (the driver does not stop you: the cable would be dragged)")
	default:
		r.add(area, "charger", Pass, fmt.Sprintf("unplugged (battery %.2f V)", float64(st.BatteryMV)/1000), "")
	}
}

func orDash(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

// judgeLink: the board as the driver sees it.
func judgeLink(r *Report, st api.State) {
	l := st.Link
	age := "no frame yet"
	if l.BoardAgeS != nil {
		age = fmt.Sprintf("last frame %.0f ms ago", *l.BoardAgeS*1000)
	}
	m := fmt.Sprintf("IMU %.1f Hz, %d frames (%d bad checksums, %d unknown, %d malformed, %d bytes skipped), %s; battery %.2f V",
		l.IMUHz, l.Frames, l.BadChecksum, l.UnknownFunc, l.Malformed, l.SkippedBytes, age, float64(st.BatteryMV)/1000)
	s := Pass
	fix := ""
	switch {
	case st.BoardSilent || l.Frames == 0:
		s, fix = Fail, "the board is silent: check its power switch and cable (rosorin-base supervisor-status shows the port)"
	case l.IMUHz < imuLowHz || l.IMUHz > imuHighHz:
		s, fix = Warn, fmt.Sprintf("the IMU should run at %.0f-%.0f Hz: check the USB link and the CPU load", imuLowHz, imuHighHz)
	case l.BadChecksum+l.UnknownFunc+l.Malformed > 0:
		s, fix = Warn, "a noisy link: try another cable or port"
	}
	r.add("service", "driver link", s, m, fix)
}

// judgeScans: the LiDAR as the driver sees it.
func judgeScans(r *Report, st api.State) {
	if st.ScanAgeS == nil {
		r.add("service", "driver scans", Fail, "no scan yet", "the LiDAR reader has no scans: rosorin-base supervisor-status shows the reader; check the LiDAR's power")
		return
	}
	m := fmt.Sprintf("%.1f scans/s, last %.0f ms ago", st.ScansHz, *st.ScanAgeS*1000)
	switch {
	case *st.ScanAgeS > 0.5:
		r.add("service", "driver scans", Fail, m+" (stale: the scan gate holds software commands)", "check the LiDAR reader (rosorin-base supervisor-status) and the LiDAR's power")
	case st.ScansHz < revLow || st.ScansHz > revHigh:
		r.add("service", "driver scans", Warn, m, fmt.Sprintf("expected %.0f-%.0f scans/s: check the LiDAR's power and spin", revLow, revHigh))
	default:
		r.add("service", "driver scans", Pass, m, "")
	}
}

// checkSupervisor: the supervisor's status file, which it writes while the driver is down too.
func checkSupervisor(r *Report, o Options) {
	st, err := supervisor.ReadStatus(o.Socket)
	if err != nil {
		r.add("service", "supervisor", Warn, "no status: "+err.Error(), "the driver runs without the supervisor (rosorin-base driver): run it under rosorin-base run, which owns the port and stops the wheels when the driver dies")
		return
	}
	age := o.Clock.Now().Sub(st.Updated)
	m := fmt.Sprintf("pid %d, board port %s, driver pid %d (%d starts), %d stop frames, status %.1f s old", st.PID, st.Port,
		st.DriverPID, st.DriverStarts, st.StopFrames, age.Seconds())
	switch {
	case st.Port == supervisor.PortClosed:
		r.add("service", "supervisor", Fail, m, "the supervisor has shut down: start the service")
	case age > 3*time.Second:
		r.add("service", "supervisor", Fail, m+": stale", "the supervisor is stuck or dead: journalctl -u rosorin-base")
	case st.Port == supervisor.PortGone:
		r.add("service", "supervisor", Fail, m+": the board's device is GONE (USB drop)", "check the board's USB cable; the supervisor reopens it every 10 ms")
	case st.Warning != "":
		r.add("service", "supervisor", Warn, m+": "+st.Warning, "")
	default:
		r.add("service", "supervisor", Pass, m, "")
	}
	if b := st.Bridge; b != nil {
		if p := b.Problem(); p != "" {
			r.add("ros2", "ROS 2 bridge process", Fail, p, "journalctl -u rosorin-base | grep rosorin-ros2; docs/ros2.md")
		} else {
			r.add("ros2", "ROS 2 bridge process", Pass, fmt.Sprintf("pid %d, %d starts", b.PID, b.Starts), "")
		}
	}
}

// checkUnit asks systemd for the unit's state.
func checkUnit(r *Report, unit string) {
	if _, err := exec.LookPath("systemctl"); err != nil {
		r.add("service", "systemd unit", Skip, "no systemctl on this machine", "")
		return
	}
	out, _ := exec.Command("systemctl", "is-active", unit).Output()
	state := strings.TrimSpace(string(out))
	switch state {
	case "active":
		r.add("service", "systemd unit", Pass, unit+": active", "")
	case "":
		r.add("service", "systemd unit", Warn, unit+": systemd did not answer (no systemd running here?)", "")
	default:
		r.add("service", "systemd unit", Fail, unit+": "+state,
			"sudo systemctl enable --now "+unit+" (deploy/README.md installs it); journalctl -u "+unit+" -n 50")
	}
}
