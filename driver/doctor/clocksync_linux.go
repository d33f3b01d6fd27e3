package doctor

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// checkClockSync asks the kernel whether NTP (or any time daemon) has synchronised the clock (adjtimex).
func checkClockSync(r *Report) {
	var tx unix.Timex
	if state, err := unix.Adjtimex(&tx); err != nil {
		r.add("system", "clock sync", Warn, "cannot read the kernel's clock state: "+err.Error(), "")
	} else if state == unix.TIME_ERROR || tx.Status&unix.STA_UNSYNC != 0 {
		r.add("system", "clock sync", Warn, "the system clock is not synchronised (NTP)",
			"records and captures carry wall-clock times: sudo timedatectl set-ntp true (timedatectl timesync-status)")
	} else {
		r.add("system", "clock sync", Pass, fmt.Sprintf("synchronised, estimated error %d us", tx.Esterror), "")
	}
}
