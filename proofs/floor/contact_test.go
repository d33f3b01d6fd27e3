package floor

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/target"
	"github.com/rosorin/rosorin/proofs/target/targettest"
	"github.com/rosorin/rosorin/sim"
)

// The floor legs drive freely: the fake's driver runs the real contact decision, and it must count 0 false
// trips, having judged.
func TestProveFakeCountsNoContactFalseTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rep, out, err := proveFake(t, targettest.Options{Seed: 3, Floor: sim.DefaultRoom()}, small, "all")
		if err != nil {
			t.Fatal(err)
		}
		c := rep.Contact
		if c == nil || c.FalseTrips != 0 || c.Estimates < 50 || c.Mode != "act" {
			t.Fatalf("contact count %+v", c)
		}
		if !strings.Contains(out, "contact reflex: 0 false trips over the floor proof (mode act") {
			t.Errorf("output lacks the contact line")
		}
		b, _ := json.Marshal(rep)
		if !strings.Contains(string(b), `"contact_reflex":{"false_trips":0`) {
			t.Errorf("record lacks the count: %s", b)
		}
	})
}

// The count's negative control: contacts reported by the driver are counted, across a driver restart
// (which counts from zero again), and a driver without the reflex says so.
func TestContactCountAcrossDrivers(t *testing.T) {
	r := &runner{ev: nil}
	state := func(pid int, contacts uint64) target.State {
		raw, _ := json.Marshal(map[string]any{"contact": api.ContactState{Mode: "act", Contacts: contacts, Estimates: 10,
			LastContact: &api.ContactEvent{Reason: "contact: commanded 0.20 m/s, measured 0.01 m/s for 0.3 s"}}})
		return target.State{Raw: raw, Pids: target.Pids{Driver: pid}}
	}
	if got := r.contactLine(); !strings.Contains(got, "not reported") {
		t.Fatalf("no reflex: %q", got)
	}
	r.rep = &Report{}
	for _, s := range []struct {
		st  target.State
		leg string
	}{{state(100, 0), "a"}, {state(100, 1), "b"}, {state(100, 1), "c"}, {state(200, 1), "kill"}, {state(200, 1), "d"}} {
		r.takeContact(s.st, s.leg)
	}
	line := r.contactLine()
	if r.contact.FalseTrips != 2 || len(r.contact.Trips) != 2 || r.contact.Drivers != 2 || !strings.HasPrefix(line, "contact reflex: 2 false trips") {
		t.Fatalf("%+v %q", r.contact, line)
	}
	if !strings.HasPrefix(r.contact.Trips[0], "b: contact: commanded 0.20 m/s") || !strings.HasPrefix(r.contact.Trips[1], "kill: ") {
		t.Fatalf("trips %q", r.contact.Trips)
	}
}
