package standtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/protocol/board"
)

// Waiting for frames, truth and state, the wheel predicates, the socket calls with their timeout, and
// MotorSpeeds, which checks a frame the board received.

// WaitFrame waits up to timeout (widened under -race) for the first frame from index from on that satisfies ok.
func WaitFrame(tg Bench, from int, timeout time.Duration, ok func(Frame) bool) (Frame, bool) {
	clk := clockOf(tg)
	end := clk.Now().Add(testkit.Bound(timeout))
	for {
		for _, f := range tg.Frames(from) {
			if ok(f) {
				return f, true
			}
			from = f.Index + 1
		}
		if clk.Now().After(end) {
			return Frame{}, false
		}
		_ = clk.Sleep(context.Background(), 500*time.Microsecond)
	}
}

// WaitTruth polls the truth until ok holds (timeout widened under -race); it returns the last truth seen.
func WaitTruth(tr Truth, timeout time.Duration, ok func(Wheels) bool) (Wheels, bool) {
	var x Wheels
	err := testkit.Eventually(testkit.Bound(timeout), func() error {
		if x = tr.Wheels(); !ok(x) {
			return errNotYet
		}
		return nil
	})
	return x, err == nil
}

var errNotYet = errors.New("not yet")

func waitState(t *testing.T, tg Bench, timeout time.Duration, what string, ok func(api.State) bool) api.State {
	t.Helper()
	timeout = testkit.Bound(timeout)
	var st api.State
	err := testkit.Eventually(timeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(time.Second))
		defer cancel()
		var err error
		if st, err = tg.Client().State(ctx); err != nil {
			return err
		}
		if !ok(st) {
			return errNotYet
		}
		return nil
	})
	if err != nil {
		t.Fatalf("timeout (%v) waiting for %s: last state enabled=%v estop=%s blocked=%s pad=%s, err %v",
			timeout, what, st.Enabled, strp(st.EStop), strp(st.Blocked), st.PadMode, err)
	}
	return st
}

// Near: every wheel within 5 % of want (the sim's own inverse kinematics of a velocity, Truth.WheelRPS).
func Near(want [4]float64) func(Wheels) bool {
	return func(x Wheels) bool {
		for i := range want {
			if math.Abs(x.WheelRPS[i]-want[i]) > 0.05*math.Abs(want[i]) {
				return false
			}
		}
		return true
	}
}

// WheelsStopped is the truth judge "the wheels stopped": every target zero and every wheel below 0.01 rps.
func WheelsStopped(x Wheels) bool {
	if x.TargetRPS != [4]float64{} {
		return false
	}
	for _, w := range x.WheelRPS {
		if math.Abs(w) >= 0.01 {
			return false
		}
	}
	return true
}

// Turning: every wheel above 0.1 rps (the sim's wheels lag their targets by WheelTau 0.22 s).
func Turning(x Wheels) bool {
	for _, w := range x.WheelRPS {
		if math.Abs(w) < 0.1 {
			return false
		}
	}
	return true
}

const callTimeout = 5 * time.Second

// Call runs one client request with a deadline (widened under -race); a transport error fails the test.
func Call(t testing.TB, what string, fn func(ctx context.Context) (api.Reply, error)) api.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(callTimeout))
	defer cancel()
	r, err := fn(ctx)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return r
}

// State reads the driver's state with a deadline; a transport error fails the test.
func State(t testing.TB, cl *api.Client) api.State {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(callTimeout))
	defer cancel()
	st, err := cl.State(ctx)
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	return st
}

func state(t *testing.T, tg Bench) api.State {
	t.Helper()
	return State(t, tg.Client())
}

func enable(t *testing.T, tg Bench, on bool) api.Reply {
	t.Helper()
	return Call(t, "enable", func(ctx context.Context) (api.Reply, error) { return tg.Client().Enable(ctx, on) })
}

func mustEnable(t *testing.T, tg Bench) {
	t.Helper()
	if r := enable(t, tg, true); !r.Success || r.Message != "enabled" {
		t.Fatalf("enable: %+v", r)
	}
}

func strp(p *string) string {
	if p == nil {
		return "null"
	}
	return strconv.Quote(*p)
}

// MotorSpeeds decodes a frame as the driver must send it: a motor set-many frame for ids 0..3, with finite
// speeds no larger than bound in magnitude (bound <= 0: no limit). It is the frame judge of every target.
func MotorSpeeds(fn byte, payload []byte, bound float64) ([4]float64, error) {
	var rps [4]float64
	if fn != board.FuncMotor {
		return rps, fmt.Errorf("function %d: the driver sends only motor frames", fn)
	}
	mc, err := board.DecodeMotor(payload)
	if err != nil {
		return rps, err
	}
	if mc.Kind != board.MotorSetMany || len(mc.Speeds) != 4 {
		return rps, fmt.Errorf("motor command kind %d with %d speeds, want set-many with 4", mc.Kind, len(mc.Speeds))
	}
	for i, sp := range mc.Speeds {
		v := float64(sp.RPS)
		switch {
		case sp.ID != uint8(i):
			return rps, fmt.Errorf("speed %d for motor id %d, want id %d", i, sp.ID, i)
		case math.IsNaN(v) || math.IsInf(v, 0):
			return rps, fmt.Errorf("motor %d speed %v is not finite", i+1, v)
		case bound > 0 && math.Abs(v) > bound:
			return rps, fmt.Errorf("motor %d speed %.4f rps over the limit %.4f rps", i+1, v, bound)
		}
		rps[i] = v
	}
	return rps, nil
}
