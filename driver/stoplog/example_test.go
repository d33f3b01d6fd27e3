package stoplog_test

import (
	"fmt"
	"os"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/stoplog"
)

// The driver opens the log in its state directory at start, shows what Open skipped, appends each stop once
// its judge has spoken and closes the log at shutdown.
func ExampleOpen() {
	stateDir, _ := os.MkdirTemp("", "state")
	defer os.RemoveAll(stateDir)

	l, rec, err := stoplog.Open(stateDir, stoplog.Options{})
	if err != nil {
		fmt.Println(err) // only a state directory that cannot be used
		return
	}
	if err := rec.Err(); err != nil {
		fmt.Println(err) // bad records: named, skipped, the driver starts anyway
	}
	r := l.Append(api.StopRecord{Kind: api.StopEStop, Outcome: "PASS", Confidence: api.ConfidenceOK})
	fmt.Println("logged seq", r.Seq)
	if err := l.Close(); err != nil {
		fmt.Println(err)
	}

	recs, _, _ := stoplog.Read(stateDir)
	fmt.Println(len(recs), recs[0].Kind)
	// Output:
	// logged seq 1
	// 1 estop
}
