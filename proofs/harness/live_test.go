package harness

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
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

func TestStampOrNow(t *testing.T) {
	now := time.Now()
	if got := stampOrNow(now.Add(-20*time.Millisecond), now); !got.Equal(now.Add(-20 * time.Millisecond)) {
		t.Error("a plausible stamp was not used")
	}
	if got := stampOrNow(now.Add(-5*time.Second), now); !got.Equal(now) {
		t.Error("a stamp from another clock was used")
	}
	if got := stampOrNow(time.Time{}, now); !got.Equal(now) {
		t.Error("a zero stamp was used")
	}
}

func TestEvidenceLines(t *testing.T) {
	var b bytes.Buffer
	e := NewEvidence(&b, RealClock{})
	e.Logf("state: %s", `{"a":1}`)
	e.Flush()
	if !strings.Contains(b.String(), `state: {"a":1}`) || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("%q", b.String())
	}
	var nilEv *Evidence
	nilEv.Logf("no panic") // a nil log discards
	if got := EvidenceName("stop_proof_stand", time.Date(2026, 10, 2, 17, 16, 17, 0, time.UTC)); got != "stop_proof_stand_20261002_171617.log" {
		t.Error(got)
	}
	if c := compact([]byte("{\n  \"a\": \"x y\",\n  \"b\": 1\n}")); c != `{"a":"x y","b":1}` {
		t.Error(c)
	}
}

func TestConfigNumber(t *testing.T) {
	doc := []byte(`{"gate":{"scan_timeout":0.5,"limits":[{"max_linear":0.35}]}}`)
	if v, ok := ConfigNumber(doc, "scan_timeout"); !ok || v != 0.5 {
		t.Error(v, ok)
	}
	if v, ok := ConfigNumber(doc, "max_linear"); !ok || v != 0.35 {
		t.Error(v, ok)
	}
	if _, ok := ConfigNumber([]byte(`not json`), "x"); ok {
		t.Error("found a number in garbage")
	}
}
