// Package rigdoctor is `stopproof doctor`: the driver's bring-up checks (driver/doctor) and what a proof rig
// needs beyond them: the setup stated (stand or floor), this user's roles on the control socket (the proofs
// drive, e-stop and reset), the service's commands runnable, the driver's configuration files readable. Like
// the driver's doctor it never moves a wheel: it reads files and the socket's owner, and asks nothing of the
// driver but its state.
package rigdoctor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/doctor"
	"github.com/rosorin/rosorin/rig"
)

// Area is the report's area of the proof rig's checks.
const Area = "rig"

// Options are the driver doctor's options and the rig (nil: a rig of flags only, whose setup is not stated).
type Options struct {
	Doctor doctor.Options
	Rig    *rig.Rig
	// DriverConfig are the driver's configuration files to check (the rig's, or --driver-config).
	DriverConfig []string
	// ServiceStart and ServiceStop are the service's shell lines ("" on the simulator: it owns its service).
	ServiceStart, ServiceStop string
}

// Run runs the driver doctor's checks, then the proof rig's.
func Run(o Options) *doctor.Report {
	r := doctor.Run(o.Doctor)
	add := func(name string, s doctor.Status, measured, fix string) {
		if s == doctor.Pass {
			fix = ""
		}
		r.Checks = append(r.Checks, doctor.Check{Area: Area, Name: name, Status: s, Measured: measured, Fix: fix})
	}
	switch {
	case o.Rig == nil:
		add("rig setup", doctor.Warn, "no rig file: stand or floor not stated", "name the robot in a rig file and pass --rig FILE (docs/rigs.md)")
	case o.Rig.IsSim():
		add("rig setup", doctor.Pass, fmt.Sprintf("%s: the simulator, %s world", o.Rig.Name, o.Rig.Setup), "")
	default:
		add("rig setup", doctor.Pass, fmt.Sprintf("%s: %s", o.Rig.Name, o.Rig.Setup), "")
	}
	checkRoles(o, add)
	if o.ServiceStart != "" || o.ServiceStop != "" {
		for _, c := range []struct{ what, line string }{{"start", o.ServiceStart}, {"stop", o.ServiceStop}} {
			s, m, fix := commandRunnable(c.line)
			add("service "+c.what+" command", s, m, fix)
		}
	}
	for _, p := range o.DriverConfig {
		b, err := os.ReadFile(p)
		if err != nil {
			add("driver config", doctor.Fail, err.Error(), "fix the rig's driver_config (the driver's --config file, e.g. /etc/rosorin/base.yaml), or make it readable by this user")
			continue
		}
		h := sha256.Sum256(b)
		add("driver config", doctor.Pass, fmt.Sprintf("%s: %d bytes, sha256 %.12s", p, len(b), hex.EncodeToString(h[:])), "")
	}
	return r
}

// checkRoles judges this user's roles on the socket by the service's policy (api.DefaultAccess: the socket's
// owner is the service's user; rosorin-drive drives, rosorin-safety resets). A proof drives, e-stops and
// resets: it needs the safety role.
func checkRoles(o Options, add func(string, doctor.Status, string, string)) {
	sock := o.Doctor.Socket
	if sock == "" {
		return
	}
	fi, err := os.Stat(sock)
	if err != nil {
		add("proof roles", doctor.Fail, err.Error(), "start the driver service (the socket is its own), or fix the rig's socket")
		return
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		add("proof roles", doctor.Skip, "no owner known for "+sock, "")
		return
	}
	a := api.DefaultAccess(int(st.Uid))
	if err := a.Resolve(); err != nil {
		add("proof roles", doctor.Warn, err.Error(), "")
		return
	}
	gids, err := os.Getgroups()
	if err != nil {
		add("proof roles", doctor.Warn, "groups: "+err.Error(), "")
		return
	}
	gids = append(gids, os.Getgid())
	roles := a.RolesOf(os.Getuid(), gids, true)
	measured := fmt.Sprintf("uid %d on %s (owner uid %d): %s", os.Getuid(), sock, st.Uid, roles)
	switch {
	case roles.Has(api.RoleSafety | api.RoleDrive):
		add("proof roles", doctor.Pass, measured, "")
	case roles.Has(api.RoleDrive):
		add("proof roles", doctor.Fail, measured+": drives but cannot reset the e-stop the proofs latch",
			fmt.Sprintf("sudo usermod -aG %s $USER (then log in again), or run the runner as the service's user", api.DefaultSafetyGroup))
	default:
		add("proof roles", doctor.Fail, measured+": cannot drive",
			fmt.Sprintf("sudo usermod -aG %s,%s $USER (then log in again), or run the runner as the service's user", api.DefaultDriveGroup, api.DefaultSafetyGroup))
	}
}

// commandRunnable finds the program of a shell line (after sudo/env assignments) on $PATH.
func commandRunnable(line string) (doctor.Status, string, string) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return doctor.Fail, "empty", "name the service's commands in the rig (service.start, service.stop)"
	}
	prog := f[0]
	for i := 0; i < len(f) && (strings.Contains(f[i], "=") || f[i] == "sudo" || f[i] == "-n"); i++ {
		if i+1 < len(f) {
			prog = f[i+1]
		}
	}
	p, err := exec.LookPath(prog)
	if err != nil {
		return doctor.Fail, fmt.Sprintf("%q: %s not found", line, prog), "install it, or fix the rig's service commands"
	}
	m := fmt.Sprintf("%q: %s", line, p)
	if f[0] == "sudo" {
		m += " (sudo: it must not ask for a password on a CI runner: a sudoers line for these commands)"
	}
	return doctor.Pass, m, ""
}
