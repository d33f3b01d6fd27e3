package footprint

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestStatusKB(t *testing.T) {
	b := []byte("Name:\tx\nVmRSS:\t  18600 kB\nRssAnon:\t 6200 kB\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n")
	for key, want := range map[string]uint64{"Name:": 0, "VmRSS:": 18600, "RssAnon:": 6200, "voluntary_ctxt_switches:": 12,
		"nonvoluntary_ctxt_switches:": 3, "VmSwap:": 0} {
		if got := statusKB(b, key); got != want {
			t.Errorf("%s = %d, want %d", key, got, want)
		}
	}
}

func TestBetween(t *testing.T) {
	a := []Proc{{PID: 10, Ticks: 100, Switches: 1000, RSSKB: 1024}}
	b := []Proc{{PID: 10, Ticks: 150, Switches: 3000, RSSKB: 2048}}
	us, err := Between(a, b, 10, map[int]Proc{10: {RSSKB: 4096}}, func(Proc) string { return "x" })
	if err != nil {
		t.Fatal(err)
	}
	// 50 ticks of 10 ms in 10 s: 5 % of one core.
	if u := us[0]; u.CPUPct != 5 || u.WakeupsPS != 200 || u.RSSMB != 4 || u.Role != "x" {
		t.Errorf("%+v", u)
	}
	if _, err := Between(a, []Proc{{PID: 11}}, 10, nil, func(Proc) string { return "" }); !errors.Is(err, ErrChanged) {
		t.Errorf("a restarted process: %v, want ErrChanged", err)
	}
}

func TestSoakGrowth(t *testing.T) {
	r := func(Proc) string { return "driver" }
	series := func(rss ...uint64) [][]Proc {
		var ss [][]Proc
		for _, v := range rss {
			ss = append(ss, []Proc{{PID: 1, RSSKB: v, FDs: 16}})
		}
		return ss
	}
	flat := series(18000, 18100, 18000, 18200, 18100, 18000, 18100, 18200, 18100)
	if s := soakGrowth(flat, r); s != "" {
		t.Errorf("flat: %s", s)
	}
	// A capture rotation's transient in the last sample is not a leak.
	if s := soakGrowth(series(18000, 18100, 18000, 18200, 18100, 18000, 18100, 18200, 26000), r); s != "" {
		t.Errorf("a transient at the end: %s", s)
	}
	// Negative controls: a leak of memory, of descriptors, a restart.
	if s := soakGrowth(series(18000, 19000, 20000, 21000, 22000, 23000, 24000, 25000, 26000), r); !strings.Contains(s, "driver RSS") {
		t.Errorf("RSS leak not reported: %q", s)
	}
	fdLeak := series(18000, 18000, 18000, 18000, 18000, 18000)
	for i := range fdLeak {
		fdLeak[i][0].FDs = 16 + 2*i
	}
	if s := soakGrowth(fdLeak, r); !strings.Contains(s, "driver fds") {
		t.Errorf("fd leak not reported: %q", s)
	}
	restart := series(18000, 18000, 18000)
	restart[2][0].PID = 2
	if s := soakGrowth(restart, r); s == "" {
		t.Error("a restart not reported")
	}
}

func TestReadSelf(t *testing.T) {
	p, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.RSSKB == 0 || p.AnonKB == 0 || p.PSSKB == 0 || p.PSSKB > p.RSSKB || p.FDs < 3 || p.Switches == 0 {
		t.Errorf("this process: %+v", p)
	}
	ps, err := Tree(os.Getppid())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, q := range ps {
		found = found || q.PID == os.Getpid()
	}
	if !found {
		t.Errorf("this process is not in its parent's tree %+v", ps)
	}
}

func TestParseFloorVariant(t *testing.T) {
	for s, want := range map[string]floorVariant{
		"single":           {name: "single", kind: "single"},
		"service-1p":       {name: "service-1p", kind: "service", oneP: true},
		"service-nohop-1p": {name: "service-nohop-1p", kind: "service", oneP: true, nohop: true},
		"single-block":     {name: "single-block", kind: "single", block: true},
		"rosorin-base":     {name: "rosorin-base", kind: "rosorin-base"},
		"service-block-1p": {name: "service-block-1p", kind: "service", oneP: true, block: true},
	} {
		got, err := parseFloorVariant(s)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v, want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "services", "single-nohop", "rosorin-base-1p", "1p", "service-fast", "dds-block", "dds-osfile", "rosorin-base-osfile"} {
		if v, err := parseFloorVariant(s); err == nil {
			t.Errorf("%q: %+v, want an error", s, v)
		}
	}
}

// TestCheckSkeleton: a skeleton that did the service's work at its rates passes; one that left out any part
// of it fails, naming what is missing (a skeleton that reads nothing would cost nothing and prove no floor).
func TestCheckSkeleton(t *testing.T) {
	const s = 10 // seconds
	full := map[string]skelCounts{
		"supervisor": {BoardReads: 110 * s, Heartbeats: 50 * s},
		"driver":     {BoardReads: 110 * s, BoardFrames: 111 * s, Commands: 20 * s, Ticks: 50 * s, MotorWrites: 50 * s, Scans: 10 * s},
		"reader":     {LidarReads: 110 * s, Packets: 170 * s, Scans: 10 * s},
	}
	if err := checkSkeleton("service", full, s*time.Second, 0.5); err != nil {
		t.Fatalf("the full service skeleton: %v", err)
	}
	single := map[string]skelCounts{"single": {BoardReads: 110 * s, BoardFrames: 111 * s, LidarReads: 110 * s, Packets: 170 * s,
		Scans: 10 * s, Commands: 20 * s, Ticks: 50 * s, MotorWrites: 50 * s}}
	if err := checkSkeleton("single", single, s*time.Second, 0.5); err != nil {
		t.Fatalf("the full single skeleton: %v", err)
	}
	for what, mut := range map[string]func(m map[string]skelCounts){
		"motor frames written":          func(m map[string]skelCounts) { d := m["driver"]; d.MotorWrites = 0; m["driver"] = d },
		"heartbeats at the supervisor":  func(m map[string]skelCounts) { v := m["supervisor"]; v.Heartbeats = 3; m["supervisor"] = v },
		"scans at the driver":           func(m map[string]skelCounts) { d := m["driver"]; d.Scans = 0; m["driver"] = d },
		"board frames":                  func(m map[string]skelCounts) { d := m["driver"]; d.BoardFrames = 100; m["driver"] = d },
		"LiDAR packets":                 func(m map[string]skelCounts) { delete(m, "reader") },
		"commands":                      func(m map[string]skelCounts) { d := m["driver"]; d.Commands = 90; m["driver"] = d },
		"board reads by the supervisor": func(m map[string]skelCounts) { v := m["supervisor"]; v.BoardReads = 0; m["supervisor"] = v },
	} {
		m := map[string]skelCounts{}
		for k, v := range full {
			m[k] = v
		}
		mut(m)
		err := checkSkeleton("service", m, s*time.Second, 0.5)
		if err == nil || !strings.Contains(err.Error(), what) {
			t.Errorf("without %s: %v", what, err)
		}
	}
	dds := map[string]skelCounts{"dds": {IMUPub: 110 * s, OdomPub: 50 * s, ScanPub: 10 * s}}
	if err := checkSkeleton("dds", dds, s*time.Second, 0.5); err != nil {
		t.Errorf("the full dds skeleton: %v", err)
	}
	if err := checkSkeleton("dds", map[string]skelCounts{"dds": {IMUPub: 110 * s, OdomPub: 50 * s}}, s*time.Second, 0.5); err == nil ||
		!strings.Contains(err.Error(), "scans") {
		t.Errorf("a dds skeleton without scans: %v", err)
	}
	// Rates, not counts: the full counts over a window three times as long are too few.
	if err := checkSkeleton("service", full, 3*s*time.Second, 0.5); err == nil {
		t.Error("a third of the rates passed")
	}
}
