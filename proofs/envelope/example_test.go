package envelope_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rosorin/rosorin/proofs/envelope"
	"github.com/rosorin/rosorin/proofs/envelope/envelopetest"
)

// Load a floor campaign's folder and ask for the speed limit for a clearance: the fastest tested speed whose
// bounded stopping distance fits.
func ExampleLoad() {
	tmp, _ := os.MkdirTemp("", "envelope-example-")
	defer os.RemoveAll(tmp)
	dir, _ := envelopetest.Campaign{}.Write(filepath.Join(tmp, "camp")) // t_r 0.15 s, a 1.0 m/s² at 0.1, 0.2, 0.35 m/s
	fp, _ := envelope.ParseFootprint("0.25x0.20")
	rep, err := envelope.Load([]string{dir}, envelope.Options{Footprint: &fp, Clearance: 0.06})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := rep.Groups[0]
	fmt.Println(g.Name(), len(g.Env.Speeds), "speeds")
	fmt.Println(rep.LimitLine(g))
	_, err = envelope.Load([]string{dir}, envelope.Options{Clearance: 0.01})
	fmt.Println(err != nil)
	// Output:
	// estop forward 3 speeds
	// for a clearance of 0.06 m: 0.2 m/s (bounded stopping distance 0.052 m)
	// true
}
