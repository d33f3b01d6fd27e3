package simrobot

import (
	"errors"
	"fmt"

	"github.com/rosorin/rosorin/driver/api"
)

// FreshScan is the largest scan age, in seconds, that counts as scans flowing.
const FreshScan = 0.3

// Condition judges the driver's state: nil when it holds, else what is missing.
type Condition func(api.State) error

// Answering holds as soon as the driver answers with a state at all (stopproof --sim's start: the proof's
// own checks follow).
func Answering(api.State) error { return nil }

// DriverUp holds when a driver other than notPID (0: any) answers and its board link is not silent.
func DriverUp(notPID int) Condition {
	return func(st api.State) error {
		switch {
		case st.PIDs.Driver == 0:
			return errors.New("no driver pid")
		case st.PIDs.Driver == notPID:
			return fmt.Errorf("still driver pid %d", notPID)
		case st.BoardSilent:
			return fmt.Errorf("driver %d: board silent", st.PIDs.Driver)
		}
		return nil
	}
}

// Scanning is DriverUp plus LiDAR scans reaching the driver (scan age below FreshScan).
func Scanning(notPID int) Condition {
	up := DriverUp(notPID)
	return func(st api.State) error {
		if err := up(st); err != nil {
			return err
		}
		if st.ScanAgeS == nil || *st.ScanAgeS >= FreshScan {
			return fmt.Errorf("driver %d: scan age %s", st.PIDs.Driver, age(st.ScanAgeS))
		}
		return nil
	}
}

func age(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%.3f s", *p)
}
