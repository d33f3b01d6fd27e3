package scanloss_test

import (
	"fmt"

	"github.com/rosorin/rosorin/judge/scanloss"
)

func ExampleJudge() {
	age := func(x float64) *float64 { return &x }
	in := scanloss.Input{Before: age(0.07), Killed: []int{7806}, ReaderPIDsNow: []int{8146}, ScanTimeout: 0.5}
	for _, o := range []struct{ t, a float64 }{{0.5, 0.57}, {1.5, 1.57}, {2.9, 2.97}, {3.03, 0.05}, {4, 0.08}} {
		in.Obs = append(in.Obs, scanloss.Observation{T: o.t, ScanAge: age(o.a), Blocked: "disabled"})
	}
	fmt.Println(scanloss.Judge(in))

	in.ReaderPIDsNow = nil // the driver's reader respawn switched off
	fmt.Println(scanloss.Judge(in).Verdict())
	// Output:
	// {"scan_age_before":0.07,"killed_pids":[7806],"worst_scan_age_s":2.97,"scans_back_after_s":3.03,"reader_pids_now":[8146],"state_blocked":"disabled","pass":true,"reason":""}
	// PASS
	// FAIL: no LiDAR reader runs now: the reader was not respawned
}
