package footprint

import (
	"errors"
	"os"
	"strings"
	"testing"
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
	first := []Proc{{PID: 1, RSSKB: 18000, FDs: 16}}
	if s := soakGrowth(first, []Proc{{PID: 1, RSSKB: 18000 + soakRSSGrowth, FDs: 16 + soakFDs}}, r); s != "" {
		t.Errorf("within the tolerances: %s", s)
	}
	// Negative controls: a leak of memory, of descriptors, a restart.
	if s := soakGrowth(first, []Proc{{PID: 1, RSSKB: 18001 + soakRSSGrowth, FDs: 16}}, r); !strings.Contains(s, "driver RSS") {
		t.Errorf("RSS leak not reported: %q", s)
	}
	if s := soakGrowth(first, []Proc{{PID: 1, RSSKB: 18000, FDs: 17 + soakFDs}}, r); !strings.Contains(s, "driver fds") {
		t.Errorf("fd leak not reported: %q", s)
	}
	if s := soakGrowth(first, []Proc{{PID: 2, RSSKB: 18000, FDs: 16}}, r); s == "" {
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
