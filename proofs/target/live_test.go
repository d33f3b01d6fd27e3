package target

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/internal/testkit"
	"github.com/rosorin/rosorin/proofs/imu"
)

func TestFromAPI(t *testing.T) {
	est, blk, age, pl := "gamepad button 0x0100", "estop: gamepad button 0x0100", 0.07, true
	s := api.State{Enabled: false, EStop: &est, Blocked: &blk, ScanAgeS: &age, Plugged: &pl,
		PIDs:       api.PIDs{Supervisor: 10, Driver: 11, LidarReader: 12},
		Publishers: []api.Publisher{{PID: 99, Comm: "teleop"}}, GyroBiasDPS: [3]float64{-1.7, -1.6, 0.05}, GyroCalibrating: true}
	at := time.Unix(100, 0)
	st := FromAPI(s, at)
	if st.Estop != est || st.Blocked != blk || st.ScanAge != age || !st.Plugged || st.Publishers != 1 ||
		st.Pids != (Pids{10, 11, 12}) || !st.Calibrating || st.GyroBiasDPS[0] != -1.7 || !st.At.Equal(at) {
		t.Fatalf("%+v", st)
	}
	var back api.State
	if err := json.Unmarshal(st.Raw, &back); err != nil || back.PIDs.Driver != 11 {
		t.Fatalf("raw %s: %v", st.Raw, err)
	}
	if !strings.Contains(st.Short(), `estop: "gamepad button 0x0100"`) {
		t.Errorf("short %s", st.Short())
	}
	// Nothing known: no scan yet is NaN, not 0 (a 0 would read as a fresh scan).
	st = FromAPI(api.State{}, at)
	if !math.IsNaN(st.ScanAge) || st.Estop != "" || st.Plugged {
		t.Errorf("%+v", st)
	}
}

func TestStateCompact(t *testing.T) {
	if c := Compact([]byte("{\n  \"a\": \"x y\",\n  \"b\": 1\n}")); c != `{"a":"x y","b":1}` {
		t.Error(c)
	}
}

// The proofs read the driver's limits from the state record's typed configuration summary.
func TestFromAPICarriesTheConfigSummary(t *testing.T) {
	st := FromAPI(api.State{Config: api.ConfigSummary{MaxLinear: 0.35, MaxAngular: 1, ScanTimeoutS: 0.5}}, time.Now())
	if st.Config.MaxLinear != 0.35 || st.Config.MaxAngular != 1 || st.Config.ScanTimeoutS != 0.5 {
		t.Errorf("config %+v", st.Config)
	}
}

// skewedDriver serves the driver's IMU and gamepad streams on a unix socket, every message stamped with this
// machine's wall clock minus skew: a driver whose clock is off by a wall-clock step since it started (its
// stamps are its start's wall time plus its monotonic clock).
func skewedDriver(t *testing.T, skew time.Duration, buttons func() uint16) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "base.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	stream := func(msg func() any) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			enc := json.NewEncoder(w)
			for r.Context().Err() == nil {
				if enc.Encode(msg()) != nil {
					return
				}
				w.(http.Flusher).Flush()
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/imu", stream(func() any {
		return api.IMU{Stamp: time.Now().Add(-skew), AngularVelocity: [3]float64{0.01, 0.02, 0}}
	}))
	mux.Handle("/v1/gamepad", stream(func() any { return api.Gamepad{Stamp: time.Now().Add(-skew), RawButtons: buttons()} }))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return sock
}

// The driver's samples are timed on receipt by the proof's own clock, never by the driver's stamps: the
// triggers are on the proof's monotonic clock, and a driver stamp 0.8 s off (a wall-clock step) would shift
// every stop time by 0.8 s without a word.
func TestDriverIMUIsTimedOnReceipt(t *testing.T) {
	const skew = 800 * time.Millisecond
	l := NewLiveTarget(LiveConfig{Socket: skewedDriver(t, skew, func() uint16 { return 0 }), Clock: clock.Real{}})
	defer l.Close()
	before := time.Now()
	rec, err := l.RecordIMU(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	var ss []imu.Sample
	if err := testkit.Eventually(5*time.Second, func() error {
		if ss = rec.Samples(); len(ss) < 20 {
			return fmt.Errorf("%d samples of 20 (%v)", len(ss), rec.Err())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	for _, s := range ss {
		if s.At.Before(before) || s.At.After(after) {
			t.Fatalf("sample at %v, outside its receipt between %v and %v: timed by the driver's stamp", s.At, before, after)
		}
	}
}

// The gamepad trigger is the receipt of the button's first frame, on the proof's clock, for the same reason.
func TestGamepadTriggerIsTimedOnReceipt(t *testing.T) {
	const skew = 800 * time.Millisecond
	var down atomic.Bool // the button is down from the press on
	l := NewLiveTarget(LiveConfig{Socket: skewedDriver(t, skew, func() uint16 {
		if down.Load() {
			return 0x0100
		}
		return 0
	}), Clock: clock.Real{}})
	defer l.Close()
	var pressed time.Time
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	at, how, err := waitButton(ctx, l.Client(), clock.Real{}, func(b uint16) bool { return b != 0 }, func() error {
		pressed = time.Now()
		down.Store(true)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if at.Before(pressed) || at.Sub(pressed) > time.Second {
		t.Fatalf("trigger at %v, press at %v (%s): timed by the driver's stamp", at, pressed, how)
	}
}

// The lag is measured from the same samples, so a stepped driver clock is reported, not used.
func TestLagReportsADriverClockOffset(t *testing.T) {
	now := time.Now()
	var ss []imu.Sample
	for i := range 100 {
		at := now.Add(time.Duration(i) * 9 * time.Millisecond)
		ss = append(ss, imu.Sample{At: at, Stamp: at.Round(0).Add(-800*time.Millisecond - time.Duration(i%3)*time.Millisecond), Source: imu.SourceDriver})
	}
	ss = append(ss, imu.Sample{At: now, Source: imu.SourceRaw}) // no stamp: not measured
	l := imu.LagOf(ss)
	if l.N != 100 || math.Abs(l.MedianMS-801) > 0.01 || math.Abs(l.MinMS-800) > 0.01 || math.Abs(l.MaxMS-802) > 0.01 {
		t.Fatalf("%+v", l)
	}
	if !strings.Contains(l.Note(), "0.801 s off") {
		t.Errorf("note %q", l.Note())
	}
	if n := (imu.Lag{N: 5, MedianMS: 0.4, MaxMS: 3}).Note(); n != "" {
		t.Errorf("a sub-millisecond lag noted: %q", n)
	}
	if l := imu.LagOf(nil); l.N != 0 || l.String() != "no driver stamps" {
		t.Errorf("%+v", l)
	}
}
