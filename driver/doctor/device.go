package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/rosorin/rosorin/driver"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/serialport"
)

// The board's device, its permissions and who holds it. checkBoardDevice returns the holders found (another
// process that has the port open), for the talking check to decide how to listen.
func checkBoardDevice(r *Report, o Options) []serialport.Holder {
	const area = "board"
	if o.Device == "" {
		r.add(area, "board device", Fail, "no device given", "pass --device (the board is /dev/ttyACM0 on the ROSOrin)")
		return nil
	}
	dev, ok := checkDevice(r, o, area, "board device", o.Device)
	if !ok {
		return nil
	}
	checkPermissions(r, area, "board permissions", dev)
	return checkHolders(r, area, "board port free", dev)
}

// device is what a device check found.
type device struct {
	path string // as given
	real string // after symlinks
	info fs.FileInfo
	uid  uint32
	gid  uint32
	usb  usbInfo
}

// usbInfo is the USB device behind a tty, from sysfs.
type usbInfo struct {
	Vendor, Product, Serial, Manufacturer, Name, Driver, Port string
}

func (u usbInfo) String() string {
	if u.Vendor == "" {
		return ""
	}
	s := fmt.Sprintf("USB %s:%s", u.Vendor, u.Product)
	if d := joinNonEmpty(" ", u.Manufacturer, u.Name); d != "" {
		s += " (" + d + ")"
	}
	if u.Serial != "" {
		s += " serial " + u.Serial
	}
	if u.Port != "" {
		s += " at USB path " + u.Port
	}
	if u.Driver != "" {
		s += ", driver " + u.Driver
	}
	return s
}

// checkDevice: the path exists, is a character device, and which USB device it is.
func checkDevice(r *Report, o Options, area, name, path string) (device, bool) {
	d := device{path: path}
	info, err := os.Stat(path)
	if err != nil {
		fix := "check the cable and the power; the kernel log says what enumerated: journalctl -k | grep -i tty"
		if c := candidates(o.Root); len(c) > 0 {
			fix = "serial devices present: " + strings.Join(c, ", ") + "; pass the board's with --device, or plug it in; " + fix
		} else {
			fix = "no serial device present at all; " + fix
		}
		r.add(area, name, Fail, fmt.Sprintf("%s: %v", path, errors.Unwrap(err)), fix)
		return d, false
	}
	d.info = info
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		d.uid, d.gid = st.Uid, st.Gid
	}
	d.real, _ = filepath.EvalSymlinks(path)
	if info.Mode()&fs.ModeCharDevice == 0 {
		r.add(area, name, Fail, path+" is not a character device ("+info.Mode().Type().String()+")",
			"pass the serial device itself (a tty under /dev)")
		return d, false
	}
	where := path
	if d.real != "" && d.real != path {
		where += " -> " + d.real
	}
	base := filepath.Base(d.real)
	if strings.HasPrefix(d.real, "/dev/pts/") {
		r.add(area, name, Warn, where+": a pseudo-terminal, not a USB device (the simulator?)",
			"on the robot this is a USB device (the board /dev/ttyACM0, the LiDAR /dev/lidar)")
		return d, true
	}
	d.usb = usbOf(o.Root, base)
	if d.usb.Vendor == "" {
		r.add(area, name, Warn, where+": a tty with no USB device behind it in sysfs",
			"on the robot this is a USB device (the board /dev/ttyACM0, the LiDAR /dev/lidar); check: udevadm info -a -n "+path)
		return d, true
	}
	r.add(area, name, Pass, where+": "+d.usb.String(), "")
	return d, true
}

// candidates lists the serial devices a person might mean: /dev/serial/by-id links, ttyACM and ttyUSB.
func candidates(root string) []string {
	var out []string
	for _, pat := range []string{"dev/serial/by-id/*", "dev/ttyACM*", "dev/ttyUSB*"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		for _, p := range m {
			out = append(out, "/"+strings.TrimPrefix(strings.TrimPrefix(p, root), "/"))
		}
	}
	return out
}

// usbOf walks from /sys/class/tty/NAME/device up to the USB device (the directory with idVendor).
func usbOf(root, tty string) usbInfo {
	var u usbInfo
	devLink := filepath.Join(root, "sys/class/tty", tty, "device")
	dir, err := filepath.EvalSymlinks(devLink)
	if err != nil {
		return u
	}
	if drv, err := filepath.EvalSymlinks(filepath.Join(dir, "driver")); err == nil {
		u.Driver = filepath.Base(drv)
	}
	sysRoot := filepath.Join(root, "sys")
	for d := dir; strings.HasPrefix(d, sysRoot) && d != sysRoot; d = filepath.Dir(d) {
		if v := readAttr(d, "idVendor"); v != "" {
			u.Vendor, u.Product = v, readAttr(d, "idProduct")
			u.Serial, u.Manufacturer, u.Name = readAttr(d, "serial"), readAttr(d, "manufacturer"), readAttr(d, "product")
			u.Port = filepath.Base(d)
			return u
		}
	}
	return u
}

func readAttr(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// checkPermissions: this process may open the device read-write.
func checkPermissions(r *Report, area, name string, d device) {
	u, _ := user.Current()
	groups, _ := os.Getgroups()
	var configured []string // the groups /etc/group gives the user, which a login picks up
	if u != nil {
		configured, _ = u.GroupIds()
	}
	st, measured, fix := access(uint32(os.Geteuid()), uint32(os.Getegid()), groups, configured, d.uid, d.gid, d.info.Mode().Perm(), userName(u))
	r.add(area, name, st, d.path+": "+measured, fix)
}

func userName(u *user.User) string {
	if u == nil {
		return "$USER"
	}
	return u.Username
}

// access decides whether a process with uid, gid and groups may read and write a file owned by owner:group
// with mode, and what to do if not. configured are the groups the account has on the machine (a process
// started before the user was added lacks them until the next login).
func access(uid, gid uint32, groups []int, configured []string, owner, group uint32, mode fs.FileMode, who string) (Status, string, string) {
	gname := groupName(group)
	measured := fmt.Sprintf("mode %v, owner %s, group %s; running as %s (uid %d)", mode, userNameOf(owner), gname, who, uid)
	switch {
	case uid == 0:
		return Pass, measured + ": root", ""
	case uid == owner && mode&0o600 == 0o600:
		return Pass, measured + ": the owner", ""
	case (gid == group || slices.Contains(groups, int(group))) && mode&0o060 == 0o060:
		return Pass, measured + ": a member of " + gname, ""
	case mode&0o006 == 0o006:
		return Pass, measured + ": open to everyone", ""
	}
	if mode&0o060 != 0o060 {
		return Fail, measured + ": the group may not read and write it",
			fmt.Sprintf("the udev rule should set GROUP=%q, MODE=\"0660\" (deploy/); for now: sudo chmod g+rw %s", gname, "the device")
	}
	if slices.Contains(configured, strconv.Itoa(int(group))) {
		return Fail, measured + ": the account is in " + gname + " but this login is not yet",
			"log out and in again (or: newgrp " + gname + ")"
	}
	return Fail, measured + ": not in group " + gname,
		fmt.Sprintf("sudo usermod -aG %s %s, then log out and in again", gname, who)
}

func groupName(gid uint32) string {
	if g, err := user.LookupGroupId(strconv.Itoa(int(gid))); err == nil {
		return g.Name
	}
	return strconv.Itoa(int(gid))
}

func userNameOf(uid uint32) string {
	if u, err := user.LookupId(strconv.Itoa(int(uid))); err == nil {
		return u.Username
	}
	return strconv.Itoa(int(uid))
}

// checkHolders: nobody else has the port open, or only the driver service. On a pseudo-terminal, the process
// that owns its master side (the simulator, a replay) keeps the far end open too and is not counted.
func checkHolders(r *Report, area, name string, d device) []serialport.Holder {
	path := d.path
	var hs []serialport.Holder
	var owners []string
	for _, h := range serialport.Holders(path) {
		if ownsPTY(h.PID, d.real) {
			owners = append(owners, h.String())
			continue
		}
		hs = append(hs, h)
	}
	if len(owners) > 0 && len(hs) == 0 {
		r.add(area, name, Pass, "only the pty's own master holds it: "+strings.Join(owners, ", "), "")
		return nil
	}
	if len(hs) == 0 {
		m := "no other process has " + path + " open"
		if os.Geteuid() != 0 {
			m += " (that this user may see; root sees all)"
		}
		r.add(area, name, Pass, m, "")
		return nil
	}
	var names []string
	driver := true
	for _, h := range hs {
		names = append(names, h.String())
		driver = driver && isDriver(h.Comm)
	}
	if driver {
		r.add(area, name, Pass, "held by the driver service: "+strings.Join(names, ", "), "")
		return hs
	}
	r.add(area, name, Fail, "held by "+strings.Join(names, ", "),
		"the driver must own the port alone: stop the other "+plural(len(hs), "process", "processes")+
			" (sudo fuser -v "+path+"; ModemManager probes new serial devices: sudo systemctl disable --now ModemManager)")
	return hs
}

// isDriver: the process is one of the service's: the supervisor (rosorin-base) or a child it named.
func isDriver(comm string) bool {
	return comm == "rosorin-base" || comm == driver.ChildProcName || comm == api.ReaderComm
}

// ownsPTY reports whether pid holds the master side of the pseudo-terminal dev (/dev/pts/N): a /dev/ptmx
// descriptor whose fdinfo says tty-index N.
func ownsPTY(pid int, dev string) bool {
	n, ok := strings.CutPrefix(dev, "/dev/pts/")
	if !ok {
		return false
	}
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err != nil || (target != "/dev/ptmx" && target != "/dev/pts/ptmx") {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(l, "tty-index:"); ok && strings.TrimSpace(v) == n {
				return true
			}
		}
	}
	return false
}
