package runcore

import (
	"encoding/json"
	"io"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/rosorin/rosorin/proofs/basebin"
	"github.com/rosorin/rosorin/proofs/stoppath"
)

// The JSON records of both proofs hold these three groups at the same places (encoding/json writes an
// embedded struct's fields where it is embedded), with their own fields between them.

// Head opens a proof's JSON record: what ran against what, when.
type Head struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Target  string `json:"target"`
	// DriverBin is the rosorin-base binary the simulated robot ran: path, version, digest, how chosen.
	DriverBin *basebin.Bin    `json:"driver_bin,omitempty"`
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

// WriteTable prints the summary's table as chapter 19 prints it: ASCII, "stop path" and a column per motion,
// a row per label. cell gives row i's cell at motion j and whether there is one; where there is none the
// cell is "-" (the path does not run at that motion), and a row without any cell is left out.
func WriteTable(w io.Writer, rows []string, motions []stoppath.Motion, cell func(i, j int) (string, bool)) error {
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
	)
	header := []any{"stop path"}
	for _, m := range motions {
		header = append(header, m.Name)
	}
	t.Header(header...)
	for i, label := range rows {
		cells := []string{label}
		any := false
		for j := range motions {
			c, ok := cell(i, j)
			if !ok {
				c = "-"
			}
			any = any || ok
			cells = append(cells, c)
		}
		if any {
			if err := t.Append(cells); err != nil {
				return err
			}
		}
	}
	return t.Render()
}
