package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rosorin/rosorin/internal/cliargs"
	"github.com/rosorin/rosorin/proofs/campaign"
)

// TestCampaignBadInputExitsBeforeAnything: a bad plan, bad flags or a folder that is not a campaign exit 2
// with the reason, and nothing starts (no simulated robot: these return at once).
func TestCampaignBadInputExitsBeforeAnything(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join("..", "..", "proofs", "campaign", "testdata", "stand-ci-80.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	goodPath := write("good.yaml", string(good))
	badPath := write("bad.yaml", strings.Replace(string(good), "path: estop", "path: bumper", 1))
	holdPath := write("hold.yaml", strings.Replace(string(good), "path: estop", "path: reset-hold", 1))
	travelPath := write("travel.yaml", strings.Replace(string(good), "max_still_s: 1.0}", "max_still_s: 1.0, max_travel_m: 0.1}", 1))
	otherPlan := write("other.yaml", strings.Replace(string(good), "seed: 7", "seed: 8", 1))
	camp := filepath.Join(dir, "camp")
	if _, err := campaign.Create(camp, good, campaign.Shard{}, time.Now()); err != nil { // a campaign of the good plan
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"campaign", "--sim"}, "which plan"},
		{[]string{"campaign", "--sim", filepath.Join(dir, "none.yaml")}, "no such file"},
		{[]string{"campaign", "--sim", badPath}, `unknown path "bumper"`},
		{[]string{"campaign", "--sim", holdPath}, "is a hold path"},
		{[]string{"campaign", "--sim", travelPath}, "floor requirement"},
		{[]string{"campaign", "--parallel", "2", goodPath}, "--parallel needs --sim"},
		{[]string{"campaign", "--sim", "--parallel", "0", goodPath}, "--parallel 0"},
		{[]string{"campaign", "--sim-fault", "flaky-stop=3", goodPath}, "--sim-fault needs --sim"},
		{[]string{"campaign", "--sim", "--shard", "3/2", goodPath}, "--shard"},
		{[]string{"campaign", "--sim", "--hold", "1s", goodPath}, "--hold"},
		{[]string{"campaign", "--sim", "--dir", camp, otherPlan}, "another plan"},
		{[]string{"campaign", "resume", "--sim", dir}, "no campaign folder"},
		{[]string{"campaign", "resume", "--sim"}, "which campaign"},
	} {
		app := newApp()
		var out strings.Builder
		app.Writer, app.ErrWriter = &out, &out
		err := app.Run(cliargs.Reorder(append([]string{"stopproof"}, tc.args...), app))
		ec, ok := err.(interface{ ExitCode() int })
		if !ok || ec.ExitCode() != exitAbort {
			t.Errorf("%v: %v, want exit %d", tc.args, err, exitAbort)
			continue
		}
		if !strings.Contains(err.Error()+out.String(), tc.want) {
			t.Errorf("%v: %q does not say %q", tc.args, err.Error()+out.String(), tc.want)
		}
		if strings.Contains(out.String(), "starting") {
			t.Errorf("%v started something:\n%s", tc.args, out.String())
		}
	}
}
