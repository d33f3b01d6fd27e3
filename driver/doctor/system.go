package doctor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rosorin/rosorin/driver/service"
)

// checkROS2: the bridge binary and the library it needs, the domain and the security mode of this environment.
func checkROS2(r *Report, o Options) {
	const area = "ros2"
	if o.BridgeBinary == "" {
		r.add(area, "ROS 2 bridge binary", Skip, "ROS 2 not asked for", "")
		return
	}
	named := o.BridgeBinary
	if named == service.BridgeName {
		named = ""
	}
	bin, err := service.FindBridge(named)
	if err != nil {
		r.add(area, "ROS 2 bridge binary", Fail, err.Error(), "the driver runs without ROS 2 until it is built: "+service.BridgeBuildHint)
		return
	}
	r.add(area, "ROS 2 bridge binary", Pass, bin, "")
	if _, err := exec.LookPath("ldd"); err == nil {
		out, _ := exec.Command("ldd", bin).Output()
		line := ""
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "libddsc") {
				line = strings.TrimSpace(l)
			}
		}
		switch {
		case line == "":
			r.add(area, "Cyclone DDS library", Fail, bin+" does not link libddsc", "rebuild it with -tags ros2")
		case strings.Contains(line, "not found"):
			r.add(area, "Cyclone DDS library", Fail, line, "sudo apt-get install cyclonedds-dev (Cyclone DDS 0.10, Debian's)")
		default:
			r.add(area, "Cyclone DDS library", Pass, line, "")
		}
	}
	domain := os.Getenv("ROS_DOMAIN_ID")
	if domain == "" {
		domain = "0 (default)"
	}
	sec := "off"
	if os.Getenv("ROS_SECURITY_ENABLE") == "true" {
		sec = fmt.Sprintf("on, strategy %s, keystore %s", orDefault(os.Getenv("ROS_SECURITY_STRATEGY"), "Permissive"), orDefault(os.Getenv("ROS_SECURITY_KEYSTORE"), "unset"))
	}
	st, fix := Pass, ""
	if ks := os.Getenv("ROS_SECURITY_KEYSTORE"); os.Getenv("ROS_SECURITY_ENABLE") == "true" && (ks == "" || !exists(ks)) {
		st, fix = Fail, "security is on but the keystore is missing: see docs/ros2-security.md"
	}
	r.add(area, "ROS 2 domain and security", st, "domain "+domain+"; security "+sec+" (this shell's environment)", fix)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// checkSystem: the clock's NTP sync and the disk.
func checkSystem(r *Report, o Options) {
	checkClockSync(r)
	for _, d := range o.DiskDirs {
		checkDisk(r, d)
	}
}

const (
	diskFail = 100 << 20 // below this, a capture segment or the battery log may not fit
	diskWarn = 1 << 30   // a default capture keeps up to 2 GiB
)

func checkDisk(r *Report, dir string) {
	p := dir
	for !exists(p) && p != filepath.Dir(p) {
		p = filepath.Dir(p)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(p, &fs); err != nil {
		r.add("system", "disk "+dir, Warn, err.Error(), "")
		return
	}
	free := fs.Bavail * uint64(fs.Bsize)
	m := fmt.Sprintf("%.1f GiB free at %s", float64(free)/(1<<30), p)
	switch {
	case free < diskFail:
		r.add("system", "disk "+dir, Fail, m, "free space: captures stop and the battery log fails below 100 MiB")
	case free < diskWarn:
		r.add("system", "disk "+dir, Warn, m, "a capture keeps up to 2 GiB by default (--capture-keep)")
	default:
		r.add("system", "disk "+dir, Pass, m, "")
	}
}
