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

// WriteMCAPJSON decodes the raw serial channels of an MCAP capture (complete or cut) and writes, per
// channel, one JSON object per record with a leading "topic" field (offsets count the channel's own bytes),
// then one summary line per raw channel with its topic. A cut file is decoded to the cut and its summaries
// carry "cut": the reason.
func WriteMCAPJSON(w io.Writer, r io.Reader, name string, summaryOnly bool) error {
	out := bufio.NewWriterSize(w, 64<<10)
	type chanDec struct {
		topic string
		dec   *Decoder
		sum   Summary
	}
	decs := map[uint16]*chanDec{}
	var order []uint16
	schemas := map[uint16]string{}
	var werr error
	emitFor := func(c *chanDec) func(Record) {
		return func(rec Record) {
			if summaryOnly || werr != nil {
				return
			}
			werr = writeTopicJSON(out, c.topic, rec)
		}
	}
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
			decs[c.ID] = &chanDec{topic: c.Topic, dec: d}
			order = append(order, c.ID)
			return nil
		},
		Message: func(m *mcap.Message) error {
			c, ok := decs[m.ChannelID]
			if !ok {
				return nil
			}
			_, data, err := mcapfile.DecodeRaw(m.Data)
			if err != nil {
				return nil // counted nowhere: a foreign message on a raw-schema channel
			}
			c.dec.Feed(data, emitFor(c))
			return werr
		},
	})
	if err != nil {
		_ = out.Flush()
		return fmt.Errorf("decode %s: %w", name, err)
	}
	for _, id := range order {
		c := decs[id]
		c.sum = c.dec.Close(emitFor(c))
		if werr != nil {
			break
		}
		b, err := json.Marshal(c.sum)
		if err != nil {
			return err
		}
		extra := fmt.Sprintf(`{"topic":%q,`, c.topic)
		if walk.Cut != nil {
			extra += fmt.Sprintf(`"cut":%q,`, walk.Cut.Error())
		}
		if _, err := out.WriteString(extra); err != nil {
			return err
		}
		out.Write(b[1:])
		out.WriteByte('\n')
	}
	if werr != nil {
		return fmt.Errorf("writing the output: %w", werr)
	}
	return out.Flush()
}

func writeTopicJSON(out *bufio.Writer, topic string, rec Record) error {
	b, err := rec.MarshalJSON()
	if err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	if _, err := fmt.Fprintf(out, `{"topic":%q,`, topic); err != nil {
		return err
	}
	out.Write(b[1:])
	return out.WriteByte('\n')
}
