package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture/mcapfile"
)

// TopicSummary is the decode summary of one raw serial channel of an MCAP capture.
type TopicSummary struct {
	Topic string
	Summary
}

// DecodeMCAP decodes the raw serial channels of an MCAP capture (complete or cut), feeding each channel's
// bytes through its own Decoder (kind from the channel's "kind" metadata, else from the topic) and handing
// every record to emit (which may be nil). It returns one summary per raw channel in channel order and how
// the linear read ended (Walk.Cut is the reason for a cut file). The error is emit's or a non-MCAP input.
func DecodeMCAP(r io.Reader, emit func(topic string, rec Record) error) ([]TopicSummary, mcapfile.Walk, error) {
	type chanDec struct {
		topic string
		dec   *Decoder
		emit  func(Record)
	}
	decs := map[uint16]*chanDec{}
	var order []uint16
	schemas := map[uint16]string{}
	var eerr error
	walk, err := mcapfile.Read(r, mcapfile.Visitor{
		Schema: func(s *mcap.Schema) error { schemas[s.ID] = s.Name; return nil },
		Channel: func(c *mcap.Channel) error {
			if _, ok := decs[c.ID]; ok || schemas[c.SchemaID] != mcapfile.RawSchemaName {
				return nil
			}
			kind := Kind(c.Metadata["kind"])
			if kind != Board && kind != Lidar {
				kind = Board
				if strings.Contains(c.Topic, "lidar") {
					kind = Lidar
				}
			}
			d, err := NewDecoder(kind)
			if err != nil {
				return err
			}
			cd := &chanDec{topic: c.Topic, dec: d}
			cd.emit = func(rec Record) {
				if emit != nil && eerr == nil {
					eerr = emit(cd.topic, rec)
				}
			}
			decs[c.ID] = cd
			order = append(order, c.ID)
			return nil
		},
		Message: func(m *mcap.Message) error {
			c, ok := decs[m.ChannelID]
			if !ok {
				return nil
			}
			if _, data, err := mcapfile.DecodeRaw(m.Data); err == nil {
				c.dec.Feed(data, c.emit)
			}
			return eerr
		},
	})
	if err != nil {
		return nil, walk, err
	}
	sums := make([]TopicSummary, 0, len(order))
	for _, id := range order {
		c := decs[id]
		sums = append(sums, TopicSummary{c.topic, c.dec.Close(c.emit)})
	}
	return sums, walk, eerr
}

// WriteMCAPJSON decodes the raw serial channels of an MCAP capture (complete or cut) and writes one JSON
// object per record with a leading "topic" field (offsets count the channel's own bytes), then one summary
// line per raw channel with its topic. A cut file is decoded to the cut and its summaries carry "cut": the
// reason.
func WriteMCAPJSON(w io.Writer, r io.Reader, name string, summaryOnly bool) error {
	out := bufio.NewWriterSize(w, 64<<10)
	var emit func(string, Record) error
	if !summaryOnly {
		emit = func(topic string, rec Record) error { return writeTopicJSON(out, topic, rec, "") }
	}
	sums, walk, err := DecodeMCAP(r, emit)
	if err != nil {
		_ = out.Flush()
		return fmt.Errorf("decode %s: %w", name, err)
	}
	cut := ""
	if walk.Cut != nil {
		cut = walk.Cut.Error()
	}
	for _, s := range sums {
		if err := writeTopicJSON(out, s.Topic, s.Summary, cut); err != nil {
			return fmt.Errorf("writing the output: %w", err)
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}

// writeTopicJSON writes v's JSON object with "topic" (and "cut" when not empty) as its first fields.
func writeTopicJSON(out *bufio.Writer, topic string, v json.Marshaler, cut string) error {
	b, err := v.MarshalJSON()
	if err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' {
		return fmt.Errorf("record JSON %q is not an object", b)
	}
	fmt.Fprintf(out, `{"topic":%q,`, topic)
	if cut != "" {
		fmt.Fprintf(out, `"cut":%q,`, cut)
	}
	out.Write(b[1:])
	return out.WriteByte('\n')
}
