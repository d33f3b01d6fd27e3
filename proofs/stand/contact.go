package stand

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/internal/runcore"
	"github.com/rosorin/rosorin/proofs/stoppath"
	"github.com/rosorin/rosorin/proofs/target"
)

// Contact is chapter 19's contact path: with the wheels in the air nothing moves in the LiDAR, so driving
// at 0.2 m/s is a stall, and the driver's contact reflex must latch the e-stop by itself (seed: e-stop
// 1.52 s after the wheels started, still 0.25 s later). Every other path runs with the reflex in log mode
// (the seed stopped the rosorin-contact service for them): see contactMode.
const Contact Path = "contact"

// ContactWithin is the contact path's limit: the reflex's e-stop must come within this long of the wheels'
// start (its constants give 1.25-1.35 s: the ramp to v_min, LAG, SETTLE and HOLD; the seed saw 1.50-1.52).
const ContactWithin = 2500 * time.Millisecond

// contactGiveUp: without a contact e-stop this long after the trigger's wait began (the spin-up is over),
// the path FAILs; the wheels have been turning for Spin plus this.
const contactGiveUp = 4 * time.Second

// contactOverride is how long a drive path asks for log mode: the path, its clean-up and a margin; a
// forgotten override ends by itself.
func (r *runner) contactOverride() time.Duration {
	return min(r.o.PathTimeout+r.o.DriverBack+30*time.Second, time.Duration(api.MaxContactOverride)*time.Second)
}

// awaitContact is the contact path's trigger: keep commanding until the driver's state shows the e-stop
// latched by the contact reflex; the trigger time is the reflex's decision, from the driver's record.
var awaitContact stoppath.Trigger = func(ctx context.Context, f stoppath.Firing) error {
	return f.Await("contact reflex", func(ctx context.Context, prompt func(string)) (time.Time, string, error) {
		clk := f.Clock()
		give := clk.Now().Add(contactGiveUp)
		var last target.State
		var trig time.Time
		var how string
		// The event runs beside the drive commands, on a goroutine of its own: an engine of its own.
		err := runcore.Engine{Clock: clk}.Poll(ctx, f.Target(), 50*time.Millisecond, 2*time.Second, time.Time{}, func(st target.State, err error) error {
			if err == nil {
				last = st
				if st.Estop != "" {
					c := contactOf(st)
					if !strings.HasPrefix(st.Estop, "contact:") || c == nil || c.LastContact == nil {
						return fmt.Errorf("the e-stop was latched by something else: %q", st.Estop)
					}
					lc := c.LastContact
					up := upOf(st)
					trig = st.At.Add(-time.Duration((up - lc.UptimeS) * float64(time.Second)))
					after := lc.UptimeS - lc.WheelsStartedS
					prompt(fmt.Sprintf("contact reflex: e-stop %q %.2f s after the wheels started", st.Estop, after))
					if after > ContactWithin.Seconds() {
						return fmt.Errorf("the contact e-stop came %.2f s after the wheels started, later than %.1f s", after, ContactWithin.Seconds())
					}
					how = fmt.Sprintf("the driver's contact reflex, %.2f s after the wheels started (driver clock)", after)
					return runcore.ErrDone
				}
			}
			if clk.Now().After(give) {
				mode, status := "unknown", "no state"
				if c := contactOf(last); c != nil {
					mode, status = c.Mode, c.Status
				}
				return fmt.Errorf("no contact e-stop %.1f s after the spin-up: the wheels kept turning (reflex mode %s, status %q); only the deadman or a person stops them",
					contactGiveUp.Seconds(), mode, status)
			}
			return nil
		})
		if err != nil {
			return time.Time{}, "", err
		}
		return trig, how, nil
	})
}

// contactOf reads the reflex's status from a state record (nil when the driver has none).
func contactOf(st target.State) *api.ContactState {
	var rec struct {
		Contact *api.ContactState `json:"contact"`
	}
	if len(st.Raw) == 0 || json.Unmarshal(st.Raw, &rec) != nil {
		return nil
	}
	return rec.Contact
}

func upOf(st target.State) float64 {
	var rec struct {
		UptimeS float64 `json:"uptime_s"`
	}
	_ = json.Unmarshal(st.Raw, &rec)
	return rec.UptimeS
}

// contactMode puts the reflex where the path needs it before the path drives: log mode for every drive
// path (the stand: every spin is a stall), the configured mode for the contact path. A target that cannot
// switch it is noted; on it the drive paths may end in a contact e-stop (the seed stopped the service).
func (p *pathRun) contactMode(ctx context.Context, st target.State) error {
	r := p.r
	cm, ok := r.t.(target.ContactModer)
	c := contactOf(st)
	if p.s.Spec.Rule.Contact {
		if ok && c != nil && c.Configured != "off" {
			if err := cm.ContactMode(ctx, "", 0); err != nil {
				return fmt.Errorf("contact reflex back to its configured mode: %v", err)
			}
		}
		if c == nil {
			r.printf("note: the driver reports no contact reflex")
		} else if c.Configured != "act" {
			r.printf("note: the driver's contact reflex is configured %q, not act: this path must FAIL", c.Configured)
		}
		return nil
	}
	if c == nil || c.Configured == "off" {
		return nil
	}
	if !ok {
		p.notes = append(p.notes, "the contact reflex could not be switched to log mode (target without POST /v1/contact)")
		return nil
	}
	if err := cm.ContactMode(ctx, "log", r.contactOverride()); err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return err
		}
		return fmt.Errorf("contact reflex to log mode for the path: %v", err)
	}
	if !r.contactSaid {
		r.contactSaid = true
		r.printf("contact reflex: log mode for the drive paths (wheels in the air: every spin looks like a contact); the contact path runs it in act")
	}
	p.notes = append(p.notes, "contact reflex in log mode during this path")
	return nil
}

// contactRestore returns the reflex to its configured mode at the end of the run (teardown).
func (r *runner) contactRestore(ctx context.Context) {
	if !r.contactSaid {
		return
	}
	if cm, ok := r.t.(target.ContactModer); ok {
		if err := cm.ContactMode(ctx, "", 0); err != nil {
			r.printf("teardown: the contact reflex could not be set back to its configured mode (%v); its log mode ends by itself within %v",
				err, r.contactOverride())
		}
	}
}

// contactLogFor puts the reflex in log mode for d (characterize: it spins the wheels in the air for
// minutes). It says so, once.
func (r *runner) contactLogFor(ctx context.Context, st target.State, d time.Duration) {
	cm, ok := r.t.(target.ContactModer)
	if c := contactOf(st); !ok || c == nil || c.Configured == "off" {
		return
	}
	if err := cm.ContactMode(ctx, "log", min(d, time.Duration(api.MaxContactOverride)*time.Second)); err != nil {
		r.printf("note: the contact reflex could not be switched to log mode (%v): a spin may end in a contact e-stop", err)
		return
	}
	r.contactSaid = true
	r.printf("contact reflex: log mode while characterizing (wheels in the air: every spin looks like a contact)")
}
