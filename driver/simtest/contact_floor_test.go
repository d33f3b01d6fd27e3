package simtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/kinematics"
	"github.com/rosorin/rosorin/proofs/target"
)

// The contact reflex end to end on the sim's floor: rosorin-base run (supervisor, driver, LiDAR reader) and
// the sim's floor world, its stall fault holding the body while the wheels keep turning. At each speed and
// direction the reflex must latch the e-stop and the wheels must be commanded to stop; with the reflex off
// (the negative control) they keep turning until the commands stop and the deadman stops them. A silent
// LiDAR is the scan gate's, and the reflex says it cannot judge.

func startFloor(t *testing.T, contact string) *target.SimTarget {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(40*time.Second))
	defer cancel()
	s, err := target.StartSim(ctx, target.SimConfig{BaseBin: binPath, World: "floor", Seed: 3, Contact: contact})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func contactOf(t *testing.T, st target.State) api.ContactState {
	t.Helper()
	var rec struct {
		Contact *api.ContactState `json:"contact"`
	}
	if err := json.Unmarshal(st.Raw, &rec); err != nil || rec.Contact == nil {
		t.Fatalf("no contact status in the state record: %v", err)
	}
	return *rec.Contact
}

// drive commands tw at 20 Hz from now until stop is closed.
func drive(t *testing.T, s *target.SimTarget, tw kinematics.Twist) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pub, err := s.Publisher(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			_ = pub.Send(ctx, tw)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return func() { cancel(); <-done; pub.Close() }
}

func TestContactStallOnTheFloor(t *testing.T) {
	testkit.SkipShort(t, "the contact reflex against a wall on the floor world, end to end (17 s)")
	s := startFloor(t, "")
	ctx := context.Background()
	for _, c := range []struct {
		name string
		tw   kinematics.Twist
	}{{"fwd 0.1", kinematics.Twist{VX: 0.1}}, {"fwd 0.2", kinematics.Twist{VX: 0.2}}, {"fwd 0.35", kinematics.Twist{VX: 0.35}},
		{"strafe left 0.2", kinematics.Twist{VY: 0.2}}, {"back 0.2", kinematics.Twist{VX: -0.2}}} {
		t.Run(c.name, func(t *testing.T) {
			if err := s.Enable(ctx, true); err != nil {
				t.Fatal(err)
			}
			stop := drive(t, s, c.tw)
			defer stop()
			time.Sleep(2 * time.Second)
			st, err := s.State(ctx)
			if err != nil || st.Estop != "" {
				t.Fatalf("free driving: %v, e-stop %q", err, st.Estop)
			}
			if err := s.Sim().Stall(true); err != nil {
				t.Fatal(err)
			}
			defer s.Sim().Stall(false)
			stall := time.Now()
			var trip time.Duration
			if err := testkit.Eventually(testkit.Bound(3*time.Second), func() error {
				if st, err = s.State(ctx); err != nil || st.Estop == "" {
					return errors.Join(errNotYet, err)
				}
				trip = time.Since(stall)
				return nil
			}); err != nil {
				t.Fatalf("no e-stop 3 s after the stall: contact %+v", contactOf(t, st))
			}
			if !strings.HasPrefix(st.Estop, "contact: commanded ") {
				t.Fatalf("e-stop %q", st.Estop)
			}
			// The stop frame went out with the trip: the sim's wheels are commanded zero.
			if err := testkit.Eventually(200*time.Millisecond, func() error {
				if tr := s.Sim().Truth(); tr.TargetRPS != [4]float64{} {
					return fmt.Errorf("wheels still commanded %v", tr.TargetRPS)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %q %.2f s after the stall began (state polled every 10 ms)", c.name, st.Estop, trip.Seconds())
			if trip > testkit.Bound(1200*time.Millisecond) {
				t.Errorf("e-stop %.2f s after the stall", trip.Seconds())
			}
			stop()
			if err := s.Reset(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.Enable(ctx, false); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("LiDAR silent: cannot judge, the scan gate stops the wheels", func(t *testing.T) {
		if err := s.Enable(ctx, true); err != nil {
			t.Fatal(err)
		}
		stop := drive(t, s, kinematics.Twist{VX: -0.1})
		defer stop()
		time.Sleep(1500 * time.Millisecond)
		if err := s.Sim().LidarSilent(true); err != nil {
			t.Fatal(err)
		}
		defer s.Sim().LidarSilent(false)
		time.Sleep(1500 * time.Millisecond)
		st, err := s.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c := contactOf(t, st)
		if st.Estop != "" || !strings.Contains(st.Blocked, "no scan") || !strings.HasPrefix(c.Status, "cannot judge: no LiDAR") {
			t.Fatalf("estop %q blocked %q contact %+v", st.Estop, st.Blocked, c)
		}
		if tr := s.Sim().Truth(); tr.TargetRPS != [4]float64{} {
			t.Fatalf("wheels commanded %v with the LiDAR silent", tr.TargetRPS)
		}
		t.Logf("LiDAR silent: blocked %q; contact %q", st.Blocked, c.Status)
	})
}

// The negative control: the reflex off, the robot held: the wheels keep turning while commanded, and stop
// only when the commands stop (the deadman).
func TestContactOffWheelsTurnOn(t *testing.T) {
	s := startFloor(t, "off")
	ctx := context.Background()
	if err := s.Enable(ctx, true); err != nil {
		t.Fatal(err)
	}
	stop := drive(t, s, kinematics.Twist{VX: 0.2})
	time.Sleep(1500 * time.Millisecond)
	if err := s.Sim().Stall(true); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	st, err := s.State(ctx)
	tr := s.Sim().Truth()
	stop()
	if err != nil || st.Estop != "" || tr.TargetRPS == [4]float64{} || !tr.Stalled {
		t.Fatalf("reflex off, held 3 s: e-stop %q, wheels %v, stalled %v (%v)", st.Estop, tr.TargetRPS, tr.Stalled, err)
	}
	if c := contactOf(t, st); c.Mode != "off" {
		t.Fatalf("mode %q", c.Mode)
	}
	if err := testkit.Eventually(testkit.Bound(time.Second), func() error {
		if tr := s.Sim().Truth(); tr.TargetRPS != [4]float64{} {
			return fmt.Errorf("wheels still commanded %v", tr.TargetRPS)
		}
		return nil
	}); err != nil {
		t.Fatalf("the deadman did not stop the wheels: %v", err)
	}
	t.Logf("reflex off: held for 3 s with the wheels commanded (%.2f rps), stopped by the deadman once the commands stopped", tr.TargetRPS[0])
}
