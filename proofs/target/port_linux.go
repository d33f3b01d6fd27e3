package target

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// portLocked reports whether /proc/locks lists an advisory lock (flock or POSIX) on the device's inode, and
// whose. Reading /proc/locks takes no lock itself: testing with flock(LOCK_NB) would, for an instant, make
// a starting supervisor's own lock attempt fail.
func portLocked(device string) (bool, string) {
	var st unix.Stat_t
	if err := unix.Stat(device, &st); err != nil {
		return false, ""
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return false, ""
	}
	defer f.Close()
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 14275 fe:00:9980689 0 EOF"; blocked waiters are listed as "1: -> FLOCK ...".
		fs := strings.Fields(sc.Text())
		for i, x := range fs {
			if x == want && i > 0 {
				pid, _ := strconv.Atoi(fs[i-1])
				return true, fmt.Sprintf("locked by pid %d", pid)
			}
		}
	}
	return false, ""
}
