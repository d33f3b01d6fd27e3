package charger

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

var t0 = time.Date(2026, 9, 27, 7, 37, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(math.Round(s * 1e9))) }

type chargerEv struct {
	at   float64
	ev   Event
	step int
}

// feedBattery feeds one reading per second (the board's rate) from s0 to s1 seconds; wheels(t) says whether
// motion is enabled at t (SetWheels is called every 20 ms tick, as the driver does).
func feedBattery(t *testing.T, d *Detector, s0, s1 float64, mv func(s float64) int, wheels func(s float64) bool) []chargerEv {
	t.Helper()
	var out []chargerEv
	for i := int(s0 * 50); i <= int(s1*50); i++ {
		s := float64(i) / 50
		now := at(s)
		d.SetWheels(wheels(s), now)
		if i%50 == 0 {
			ev, step, err := d.Add(mv(s), now)
			if err != nil {
				t.Fatal(err)
			}
			if ev != EventNone {
				out = append(out, chargerEv{s, ev, step})
			}
		}
	}
	return out
}

func off(float64) bool { return false }

// steps returns a voltage that starts at mv[0] and becomes mv[i] at at[i-1] seconds.
func steps(mv []int, at ...float64) func(s float64) int {
	return func(s float64) int {
		v := mv[0]
		for i, a := range at {
			if s >= a {
				v = mv[i+1]
			}
		}
		return v
	}
}

func wheelsOnUntil(end float64) func(float64) bool { return func(s float64) bool { return s < end } }

func TestChargerDetector(t *testing.T) {
	const rest = 12400
	cases := []struct {
		name    string
		initial *bool
		mv      func(s float64) int
		wheels  func(s float64) bool
		want    []string // "PLUGGED@s" with the step in mV
	}{
		{
			name:   "plug +249 then unplug -226, wheels off",
			mv:     steps([]int{rest, rest + 249, rest + 249 - 226}, 20, 40),
			wheels: off,
			want:   []string{"PLUGGED@20 (+249)", "UNPLUGGED@40 (-226)"},
		},
		{
			name:   "steady voltage with small noise: nothing",
			mv:     func(s float64) int { return rest + int(s)%3*20 },
			wheels: off,
		},
		{
			name:   "150 mV step: below 190, nothing",
			mv:     steps([]int{rest, rest + 150}, 20),
			wheels: off,
		},
		{
			name: "+-170 mV motor load with the wheels on: ignored",
			mv: func(s float64) int {
				return rest - 170*(int(s)%4/2) // 2 s under load, 2 s not
			},
			wheels: func(float64) bool { return true },
		},
		{
			name:   "even a +249 step with the wheels on: ignored",
			mv:     steps([]int{rest, rest + 249}, 20),
			wheels: func(float64) bool { return true },
		},
		{
			name:   "load release of +250 right at disable (within 3 s): ignored, also later",
			mv:     steps([]int{rest - 250, rest}, 20), // sagged under load, then released
			wheels: wheelsOnUntil(20),
		},
		{
			name:   "real plug within 3 s of disable: ignored (the transient window)",
			mv:     steps([]int{rest, rest + 249}, 21),
			wheels: wheelsOnUntil(20),
		},
		{
			name:   "negative control: the same plug 10 s after disable is seen",
			mv:     steps([]int{rest, rest + 249}, 30),
			wheels: wheelsOnUntil(20),
			want:   []string{"PLUGGED@30 (+249)"},
		},
		{
			name:    "state loaded as plugged: a step up does not repeat PLUGGED, a step down is UNPLUGGED",
			initial: func() *bool { b := true; return &b }(),
			mv:      steps([]int{rest, rest + 249, rest + 249 - 226}, 20, 40),
			wheels:  off,
			want:    []string{"UNPLUGGED@40 (-226)"},
		},
		{
			name:   "first 3 s after start count as just disabled",
			mv:     steps([]int{rest, rest + 249}, 2),
			wheels: off,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := New(DefaultConfig(), c.initial)
			evs := feedBattery(t, d, 0, 60, c.mv, c.wheels)
			var got []string
			for _, e := range evs {
				got = append(got, fmt.Sprintf("%v@%g (%+d)", e.ev, e.at, e.step))
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("events %v, want %v", got, c.want)
			}
			if len(c.want) > 0 {
				p := d.Plugged()
				if p == nil || *p != (evs[len(evs)-1].ev == EventPlugged) {
					t.Fatalf("state %v after %v", p, got)
				}
			}
		})
	}
}

func TestChargerStateAndInput(t *testing.T) {
	d := New(DefaultConfig(), nil)
	if d.Plugged() != nil {
		t.Fatal("unknown state not nil")
	}
	for _, mv := range []int{0, -5, 70000} {
		if _, _, err := d.Add(mv, t0); !errors.Is(err, ErrBadVoltage) {
			t.Fatalf("Add(%d) = %v", mv, err)
		}
	}
	if d.Rejected() != 3 {
		t.Fatalf("rejected %d", d.Rejected())
	}
	// The returned pointer is a copy: changing it does not change the detector.
	b := false
	d2 := New(DefaultConfig(), &b)
	b = true
	if p := d2.Plugged(); *p {
		t.Fatal("detector shares the caller's bool")
	}
	*d2.Plugged() = true
	if *d2.Plugged() {
		t.Fatal("Plugged returns the detector's own bool")
	}
	// A burst at a high report rate stays bounded.
	for i := 0; i < 5000; i++ {
		_, _, _ = d.Add(12000, t0.Add(time.Duration(i)*time.Millisecond))
	}
	if len(d.hist) > maxHistory {
		t.Fatalf("history grew to %d", len(d.hist))
	}
}

func TestPluggedRecord(t *testing.T) {
	when := time.Unix(1790495499, 717000000)
	b, err := MarshalPlugged(true, when)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"plugged":true,"t":1790495499.717}` {
		t.Fatalf("json %s", b)
	}
	p, tt, err := LoadPlugged(b)
	if err != nil || p == nil || !*p || tt.Sub(when).Abs() > time.Microsecond {
		t.Fatalf("load: %v %v %v", p, tt, err)
	}
	// The seed's file (Python json.dump with a float time and spaces).
	p, _, err = LoadPlugged([]byte(`{"plugged": false, "t": 1790495499.7176}`))
	if err != nil || p == nil || *p {
		t.Fatalf("seed file: %v %v", p, err)
	}
	for _, bad := range []string{``, `{`, `{"t": 1}`, `{"plugged": null}`, `{"plugged": "yes"}`, `[]`} {
		if _, _, err := LoadPlugged([]byte(bad)); err == nil {
			t.Fatalf("LoadPlugged(%q) accepted", bad)
		}
	}
}
