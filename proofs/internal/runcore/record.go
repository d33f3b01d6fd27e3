package runcore

import (
	"encoding/json"
	"io"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/rosorin/rosorin/proofs/target"
)

// The JSON records of both proofs hold these three groups at the same places (encoding/json writes an
// embedded struct's fields where it is embedded), with their own fields between them.

// Head opens a proof's JSON record: what ran against what, when.
type Head struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Target  string `json:"target"`
	// DriverBin is the rosorin-base binary the simulated robot ran: path, version, digest, how chosen.
	DriverBin *target.BaseBin `json:"driver_bin,omitempty"`
	Fault     string          `json:"fault,omitempty"`
	Start     time.Time       `json:"start"`
	End       time.Time       `json:"end"`
	Config    json.RawMessage `json:"driver_config,omitempty"`
}

// States are the driver's state records at the start and at the end of the run.
type States struct {
	StartState json.RawMessage `json:"start_state,omitempty"`
	EndState   json.RawMessage `json:"end_state,omitempty"`
	// EndLine is the printed end state.
	EndLine string `json:"end_line"`
}

// Ending says how the teardown went and where the evidence is.
type Ending struct {
	// Teardown says how the teardown went: "wheels disabled", "nothing sent" or what failed.
	Teardown   string `json:"teardown"`
	TeardownOK bool   `json:"teardown_ok"`
	Evidence   string `json:"evidence_log,omitempty"`
}

// NewTable is the summary's table as chapter 19 prints it: ASCII, the header as given, left-aligned.
func NewTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
	)
}
