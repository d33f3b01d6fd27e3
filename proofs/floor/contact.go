package floor

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/target"
)

// The contact reflex's false trips (chapter 19: "the contact reflex made 0 false trips during these
// drives"). The floor proof drives freely; every contact the driver's reflex reports during it is a false
// trip. The driver counts its contacts in the state record (contact.contacts, act and log mode alike); a
// restarted driver (kill, service) counts from zero, so the count is kept per driver pid.

// ContactCount is the Report's record of the reflex over the run.
type ContactCount struct {
	// FalseTrips is the sum over the run's drivers of the contacts they reported.
	FalseTrips uint64 `json:"false_trips"`
	// Mode is the reflex's mode as the last state showed it ("" when the driver reports no reflex).
	Mode string `json:"mode"`
	// Estimates is how many odometry estimates the reflex judged from (summed over drivers): a reflex that
	// judged nothing proves nothing.
	Estimates uint64 `json:"estimates"`
	// Trips lists each contact's reason, with the leg it came in.
	Trips []string `json:"trips,omitempty"`
	// Drivers is how many driver processes were seen.
	Drivers int `json:"drivers"`

	perPid map[int]api.ContactState
}

// noteContact reads the driver's state after a leg and takes in its reflex's count.
func (r *runner) noteContact(ctx context.Context, leg string) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	st, err := r.t.State(qctx)
	cancel()
	if err == nil {
		r.takeContact(st, leg)
	}
}

func (r *runner) takeContact(st target.State, leg string) {
	var rec struct {
		Contact *api.ContactState `json:"contact"`
	}
	if json.Unmarshal(st.Raw, &rec) != nil || rec.Contact == nil || st.Pids.Driver == 0 {
		return
	}
	c := &r.contact
	if c.perPid == nil {
		c.perPid = map[int]api.ContactState{}
	}
	prev := c.perPid[st.Pids.Driver]
	if rec.Contact.Contacts > prev.Contacts {
		reason := "?"
		if l := rec.Contact.LastContact; l != nil {
			reason = l.Reason
		}
		c.Trips = append(c.Trips, fmt.Sprintf("%s: %s (mode %s)", leg, reason, rec.Contact.Mode))
		r.ev.Logf("contact reflex: false trip during %s: %s", leg, reason)
	}
	c.perPid[st.Pids.Driver] = *rec.Contact
	c.Mode = rec.Contact.Mode
	c.FalseTrips, c.Estimates, c.Drivers = 0, 0, len(c.perPid)
	for _, s := range c.perPid {
		c.FalseTrips += s.Contacts
		c.Estimates += s.Estimates
	}
}

// contactLine is the summary's line on the reflex.
func (r *runner) contactLine() string {
	c := &r.contact
	if c.perPid == nil {
		return "contact reflex: not reported by the driver (no count of false trips)"
	}
	r.rep.Contact = c
	return fmt.Sprintf("contact reflex: %d false trips over the floor proof (mode %s, %d odometry estimates judged from, %d driver(s))",
		c.FalseTrips, c.Mode, c.Estimates, c.Drivers)
}
