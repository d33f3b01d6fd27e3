package stopmon_test

import (
	"fmt"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/stopmon"
)

func Example() {
	// The driver's identity: its host and the hash of its reported configuration (the campaign ran without
	// --config); it needs limits for the e-stop.
	want := stopmon.Identity{Host: "vm", ReportedConfigSHA256: "2f9b53d15adb0fbf66df45662fc8ad9d1f49f2d02953b6aee0a331655372289f",
		Require: []string{api.StopEStop}}
	l, err := stopmon.LoadLimits("testdata/stand-ci-summary.json", want)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := stopmon.New(stopmon.ModeHold, l, stopmon.DefaultRules)
	for i, still := range []float64{0.25, 0.52, 0.3, 0.61, 0.58} {
		r := m.Observe(api.StopRecord{Seq: uint64(i + 1), Kind: api.StopEStop, Speed: 0.2, Direction: "fwd", StillS: &still, Confidence: api.ConfidenceOK})
		fmt.Printf("stop %d: %.2f s, limit %.2f s: %s\n", r.Seq, still, r.Limit.MaxStillS, r.Level)
	}
	ok, why := m.CanEnable()
	fmt.Println(ok, why)
	fmt.Println(m.Ack("ana", time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)))
	fmt.Println(m.CanEnable())
	// Output:
	// stop 1: 0.25 s, limit 0.40 s: ok
	// stop 2: 0.52 s, limit 0.40 s: warn
	// stop 3: 0.30 s, limit 0.40 s: ok
	// stop 4: 0.61 s, limit 0.40 s: warn
	// stop 5: 0.58 s, limit 0.40 s: error
	// false stop monitor ERROR, enable refused until a person with the safety role acknowledges it: 3 of the last 5 estop stops past the 0.40 s limit (0.52, 0.61, 0.58 s)
	// <nil>
	// true
}
