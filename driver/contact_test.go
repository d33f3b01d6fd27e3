package driver

import (
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/judge/contact"
)

// The contact reflex in the driver, on the fake board: the scans come from feedScans (a still room), so
// driving is a stall, as on the stand.

func withContact(mode string) standOpt { return func(o *Options) { o.Contact = mode } }

func waitState(t *testing.T, s *stand, within time.Duration, ok func(api.State) bool) (api.State, bool) {
	t.Helper()
	var st api.State
	err := testkit.Eventually(within, func() error {
		if st = s.state(); ok(st) {
			return nil
		}
		return errors.New("not yet")
	})
	return st, err == nil
}

func TestContactTripsAndStaysLatched(t *testing.T) {
	s := newStand(t) // default mode: act
	s.feedScans()
	if _, ok := waitState(t, s, testkit.Bound(3*time.Second), func(st api.State) bool { return st.Contact != nil && st.Contact.Estimates > 3 }); !ok {
		t.Fatal("the matcher takes no scans")
	}
	s.enable(true)
	from := s.b.count()
	p := s.publish(api.Twist{VX: 0.2})
	defer p.halt()
	first, _, ok := s.b.waitFrame(from, 2*time.Second, moving)
	if !ok {
		t.Fatal("wheels never commanded")
	}
	st, ok := waitState(t, s, testkit.Bound(4*time.Second), func(st api.State) bool { return st.EStop != nil })
	if !ok {
		t.Fatalf("no e-stop 4 s after the wheels started: contact %+v", st.Contact)
	}
	if !strings.HasPrefix(*st.EStop, "contact: commanded 0.20 m/s, measured ") || !strings.HasSuffix(*st.EStop, " m/s for 0.3 s") {
		t.Fatalf("e-stop %q", *st.EStop)
	}
	stop, _, ok := s.b.waitFrame(from, time.Second, stopped)
	if !ok {
		t.Fatal("no stop frame")
	}
	after := stop.at.Sub(first.at)
	lc := st.Contact.LastContact
	if lc == nil || !lc.Latched || lc.Mode != "act" {
		t.Fatalf("last contact %+v", lc)
	}
	fromStart := lc.UptimeS - lc.WheelsStartedS
	t.Logf("%s; stop frame %.3f s after the first wheel frame; decided %.3f s after the gated command started; match %.3f ms (cpu %.3f)",
		*st.EStop, after.Seconds(), fromStart, st.Contact.MatchMeanMS, st.Contact.MatchCPUMS)
	if fromStart < 1.25 || fromStart > testkit.Bound(1600*time.Millisecond).Seconds() {
		t.Errorf("decided %.3f s after the wheels started; the constants give 1.25-1.35 plus the scan's delivery", fromStart)
	}
	if after < 1100*time.Millisecond || after > testkit.Bound(1600*time.Millisecond) {
		t.Errorf("stop frame %.3f s after the wheels started", after.Seconds())
	}
	if s.logs.count("contact reflex: contact: commanded 0.20 m/s") != 1 || s.logs.count("the last seconds before it") != 1 {
		t.Errorf("log lines: %d / %d", s.logs.count("contact reflex: contact: commanded"), s.logs.count("the last seconds before it"))
	}
	// Nothing clears it but a reset: not the end of the stall, not time.
	p.halt()
	time.Sleep(time.Second)
	if st := s.state(); st.EStop == nil || !strings.HasPrefix(*st.EStop, "contact:") {
		t.Fatalf("contact latch gone without reset: %v", st.EStop)
	}
	if r := s.enable(true); r.Success {
		t.Fatalf("enable while contact-latched: %+v", r)
	}
	if r, err := s.cl.Reset(s.ctx()); err != nil || !r.Success {
		t.Fatalf("reset: %+v %v", r, err)
	}
	if st := s.state(); st.EStop != nil {
		t.Fatalf("after reset: %v", *st.EStop)
	}
}

func TestContactLogAndOff(t *testing.T) {
	for _, mode := range []string{"log", "off"} {
		t.Run(mode, func(t *testing.T) {
			s := newStand(t, withContact(mode))
			s.feedScans()
			time.Sleep(300 * time.Millisecond)
			s.enable(true)
			p := s.publish(api.Twist{VX: 0.2})
			time.Sleep(2500 * time.Millisecond)
			st := s.state()
			p.halt()
			if st.EStop != nil {
				t.Fatalf("mode %s latched %q", mode, *st.EStop)
			}
			c := st.Contact
			switch mode {
			case "log":
				if c.Mode != "log" || c.Contacts != 1 || c.LastContact == nil || c.LastContact.Latched {
					t.Fatalf("log mode: %+v %+v", c, c.LastContact)
				}
				if s.logs.count("e-stop NOT latched") != 1 {
					t.Error("log mode contact not logged")
				}
			case "off":
				if c.Mode != "off" || c.Estimates != 0 || !strings.HasPrefix(c.Status, "off") {
					t.Fatalf("off: %+v", c)
				}
			}
		})
	}
}

func TestContactModeOverride(t *testing.T) {
	s := newStand(t)
	ctx := s.ctx()
	r, err := s.cl.ContactMode(ctx, api.ContactRequest{Mode: "log", ForS: 1})
	if err != nil || !r.Success {
		t.Fatalf("log for 1 s: %+v %v", r, err)
	}
	if c := s.state().Contact; c.Mode != "log" || c.OverrideS == nil || *c.OverrideS > 1 || c.Configured != "act" {
		t.Fatalf("override: %+v", c)
	}
	if _, ok := waitState(t, s, 2*time.Second, func(st api.State) bool { return st.Contact.Mode == "act" }); !ok {
		t.Fatal("temporary log mode did not end by itself")
	}
	for _, bad := range []api.ContactRequest{{Mode: "log"}, {Mode: "log", ForS: 601}, {Mode: "off", ForS: 5}, {Mode: "act", ForS: -1}} {
		if r, err := s.cl.ContactMode(ctx, bad); err == nil && r.Success {
			t.Errorf("%+v accepted", bad)
		}
	}
	if c := s.state().Contact; c.Mode != "act" {
		t.Fatalf("refused requests changed the mode: %+v", c)
	}
}

func TestSlowMatcherNeverDelaysATick(t *testing.T) {
	// Every match takes 300 ms, three scan periods: the matcher falls behind (scans dropped, newest wins)
	// and the control loop ticks on as before. Done in the loop, each match would hold a tick 300 ms.
	if testkit.RaceEnabled {
		t.Skip("tick timing is not measured under -race")
	}
	s := newStand(t, withContact("log"), func(o *Options) { o.testContactSlow = 300 * time.Millisecond })
	s.feedScans()
	s.enable(true)
	p := s.publish(api.Twist{VX: 0.2})
	defer p.halt()
	time.Sleep(4 * time.Second)
	st := s.state()
	c := st.Contact
	t.Logf("loop %+v; matches: mean %.1f ms, max %.1f ms; scans dropped %d, estimates %d", st.Loop, c.MatchMeanMS, c.MatchMaxMS,
		c.ScansDropped, c.Estimates)
	if c.MatchMeanMS < 290 || c.ScansDropped < 10 {
		t.Fatalf("the matcher was not slow: %+v", c)
	}
	if st.Loop.TickMaxMs > 100 || st.Loop.TickP99Ms > 30 {
		t.Fatalf("a slow matcher delayed the control loop: %+v", st.Loop)
	}
}

// TestContactLogSpanBounded: log mode renewed without a break ends at api.MaxContactLogSpan: a renewal is cut
// to the span's end, a renewal after it is refused and changes nothing, and a break (mode "") starts a new
// span. Pure: the loop's handler called at chosen instants.
func TestContactLogSpanBounded(t *testing.T) {
	c, err := newContactReflex(contact.Act, contact.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0)
	r := &loopState{cr: c, start: t0, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ask := func(at time.Duration, mode string, forS float64) api.Reply {
		return r.onContactMode(request{kind: reqContactMode, contact: api.ContactRequest{Mode: mode, ForS: forS}}, t0.Add(at))
	}
	span := time.Duration(api.MaxContactLogSpan * float64(time.Second))
	// Renewed every 500 s for 600 s, without a break.
	var at time.Duration
	for ; at+600*time.Second < span; at += 500 * time.Second {
		if rep := ask(at, "log", 600); !rep.Success {
			t.Fatalf("renewal at %v refused: %s", at, rep.Message)
		}
	}
	if rep := ask(at, "log", 600); !rep.Success {
		t.Fatalf("last renewal at %v refused: %s", at, rep.Message)
	}
	if end := c.overrideUntil.Sub(t0); end != span {
		t.Errorf("last renewal runs to %v, want cut to the span's end %v", end, span)
	}
	if m := c.mode(t0.Add(span - time.Second)); m != contact.Log {
		t.Errorf("mode just before the span's end: %v", m)
	}
	if m := c.mode(t0.Add(span)); m != contact.Act {
		t.Errorf("mode at the span's end: %v, want act", m)
	}
	// The span is spent: log mode again, at its end or later, is refused and changes nothing, until a break.
	for _, later := range []time.Duration{span, span + time.Hour} {
		if rep := ask(later, "log", 60); rep.Success {
			t.Errorf("log at %v after a spent span accepted: %s", later, rep.Message)
		} else if !strings.Contains(rep.Message, "without a break") {
			t.Errorf("refusal says %q", rep.Message)
		}
		if m := c.mode(t0.Add(later)); m != contact.Act {
			t.Errorf("refused request left mode %v", m)
		}
	}
	// A break (back to the configured mode), then log again: accepted, a new span.
	if rep := ask(span+time.Second, "", 0); !rep.Success {
		t.Fatalf("back to configured: %s", rep.Message)
	}
	if rep := ask(span+2*time.Second, "log", 60); !rep.Success || c.mode(t0.Add(span+3*time.Second)) != contact.Log {
		t.Errorf("log after a break refused: %s", rep.Message)
	}
}
