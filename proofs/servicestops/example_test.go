package servicestops_test

import (
	"fmt"
	"os"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/proofs/campaign"
	"github.com/rosorin/rosorin/proofs/servicestops"
)

// Three e-stops and a deadman stop from a stop log, beside two campaigns: the e-stops' bound is the newer
// campaign's (whatever the order given), and the deadman stop, whose path no campaign ran, has none.
func ExampleBuild() {
	still := func(x float64) *float64 { return &x }
	at := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	recs := []api.StopRecord{
		{Seq: 1, Wall: at, Kind: api.StopEStop, StillS: still(0.31), Level: api.StopLevelOK},
		{Seq: 2, Wall: at.Add(time.Hour), Kind: api.StopDeadman, StillS: still(0.28)}, // no limit: not counted
		{Seq: 3, Wall: at.Add(2 * time.Hour), Kind: api.StopEStop, StillS: still(0.47), Level: api.StopLevelWarn},
		{Seq: 4, Wall: at.Add(3 * time.Hour), Kind: api.StopEStop, StillS: still(0.33), Level: api.StopLevelOK},
	}
	estop := func(bound float64) []campaign.CellResult {
		return []campaign.CellResult{{Cell: campaign.Cell{Path: api.StopEStop, Speed: 0.35}, Still: campaign.Dist{Bound: campaign.Num(bound)}}}
	}
	sums := []*campaign.Summary{
		{Name: "february", Start: at.AddDate(0, 0, -10), Cells: estop(0.42)},
		{Name: "january", Start: at.AddDate(0, 0, -40), Cells: estop(0.40)},
	}
	r := servicestops.Build("state/stops", recs, 0, sums, nil)
	fmt.Println(r.Kinds[1].Kind, r.Kinds[1].Bounds[0].Campaign, r.Kinds[1].Bounds[0].StillS)
	r.Text(os.Stdout)
	// Output:
	// estop february 0.42
	// service deadman: 1 stops, 0 counted, 0 WARN, 0 ERROR, worst still 0.280 s, worst travel -; campaign bound no campaign cell of this path
	// service estop: 3 stops, 3 counted, 1 WARN, 0 ERROR, worst still 0.470 s, worst travel -; campaign bound estop forward 0.35 m/s: 0.420 s (february)
	// SERVICE STOPS: WARN, 4 stops from state/stops (shown, not gated: the driver's monitor gates in service)
}
