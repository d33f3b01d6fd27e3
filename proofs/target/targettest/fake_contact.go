package targettest

import (
	"context"
	"errors"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/judge/contact"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/scanmatch"
)

// The fake's contact reflex: the driver's own decision (judge/contact) fed the gate's command, the fake's
// gyro z and, at each scan, the body's pose as the odometry would measure it (still on the stand, the floor
// physics' pose on the floor). In mode act a contact latches the gate's e-stop, as the driver's trip does.
// Options.Contact sets the configured mode; ContactMode the temporary one (POST /v1/contact).

type fakeContact struct {
	mode     contact.Mode
	mon      *contact.Monitor
	override contact.Mode
	until    time.Time
	last     *api.ContactEvent
	start    time.Time
}

func newFakeContact(mode string, start time.Time) *fakeContact {
	m, err := contact.ParseMode(mode)
	if err != nil {
		m = contact.Act
	}
	mon, _ := contact.New(contact.DefaultConfig())
	return &fakeContact{mode: m, mon: mon, start: start}
}

func (c *fakeContact) effective(now time.Time) contact.Mode {
	if c.mode != contact.Off && now.Before(c.until) {
		return c.override
	}
	return c.mode
}

// contactStep runs the reflex for one IMU period ending at ts (under the fake's lock).
func (f *Fake) contactStep(ts time.Time, cmd [3]float64, wz float64, scanned bool) {
	c := f.ct
	if c == nil || c.mode == contact.Off || !f.driverUp {
		return
	}
	c.mon.Command(ts, kinematics.Twist{VX: cmd[0], VY: cmd[1], WZ: cmd[2]})
	c.mon.Gyro(ts, wz)
	c.mon.Tick(ts)
	if !scanned {
		return
	}
	var pose scanmatch.Pose2
	if f.floor != nil {
		p := f.floor.phys.Pose
		pose = scanmatch.Pose2{X: p[0], Y: p[1], Yaw: p[2]}
	}
	d := c.mon.Odometry(contact.Odo{T: ts, E: scanmatch.Estimate{Pose: pose}})
	if !d.Contact {
		return
	}
	mode := c.effective(ts)
	up := func(t time.Time) float64 { return t.Sub(c.start).Seconds() }
	c.last = &api.ContactEvent{UptimeS: up(ts), MeasuredAtS: up(d.Event.At), WheelsStartedS: up(d.Event.CmdStart), Reason: d.Event.Reason,
		Commanded: d.Event.Commanded, Measured: d.Event.Measured, ForS: d.Event.For.Seconds(), Turn: d.Event.Turn,
		Mode: mode.String(), Latched: mode == contact.Act}
	if mode == contact.Act {
		f.gate.Trip(d.Event.Reason)
	}
}

// contactState is the reflex's part of the fake's state record.
func (f *Fake) contactState(now time.Time) *api.ContactState {
	c := f.ct
	if c == nil {
		return nil
	}
	st := c.mon.Status()
	cs := &api.ContactState{Mode: c.effective(now).String(), Configured: c.mode.String(), Judging: st.Judging, Status: st.Why,
		Commanded: st.Commanded, Measured: st.Measured, Turn: st.Turn, Contacts: st.Contacts, Estimates: st.Estimates,
		LastContact: c.last}
	if now.Before(c.until) {
		left := c.until.Sub(now).Seconds()
		cs.OverrideS = &left
	}
	return cs
}

// uptime is the current driver's uptime at now.
func (f *Fake) uptime(now time.Time) float64 {
	if f.ct == nil {
		return 0
	}
	return now.Sub(f.ct.start).Seconds()
}

// ContactMode implements target.ContactModer.
func (f *Fake) ContactMode(ctx context.Context, mode string, d time.Duration) error {
	return f.driverCall(ctx, "contact", func() error {
		c := f.ct
		if c == nil || c.mode == contact.Off {
			return errors.New("contact mode refused: the contact reflex is off (--contact off)")
		}
		switch mode {
		case "":
			c.until = time.Time{}
		case "log":
			c.override, c.until = contact.Log, f.t.Add(d)
		case "act":
			c.override, c.until = contact.Act, f.t.Add(d)
		default:
			return errors.New("contact mode refused: mode " + mode)
		}
		return nil
	})
}
