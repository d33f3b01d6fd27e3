package replay

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/mcapfile"
)

// Stream is one raw channel of a recording.
type Stream struct {
	ID       uint16
	Topic    string
	Kind     capture.Kind
	Dir      capture.Direction
	Device   string // the pty's name in DIR (rx streams): ttyACM0, lidar, ...
	Baud     int
	Messages uint64
	Bytes    uint64
	BadChunk uint64 // messages whose payload is not a serial chunk (skipped)
}

// Recording is what Scan found in a capture.
type Recording struct {
	Streams    []*Stream
	First      uint64 // log time of the first raw message, ns
	Last       uint64
	Cut        error // why a cut file ended early (the playable part is what precedes it)
	Good, Size int64
}

// Duration is the span of the raw messages.
func (r *Recording) Duration() time.Duration {
	if r.Last < r.First {
		return 0
	}
	return time.Duration(r.Last - r.First)
}

// Rx returns the device-to-host streams: the ones played out.
func (r *Recording) Rx() []*Stream {
	var out []*Stream
	for _, s := range r.Streams {
		if s.Dir == capture.FromDevice {
			out = append(out, s)
		}
	}
	return out
}

// ErrNoStreams is returned for a file without raw serial channels: there is nothing to play.
var ErrNoStreams = errors.New("the capture has no raw serial channel (/serial/KIND/rx); nothing to replay")

// Message is one raw message handed out by Each.
type Message struct {
	Stream *Stream
	Time   uint64 // log time, ns
	Seq    uint32
	Data   []byte // valid only during the call
}

// walker reads the raw channels of a capture, in file order.
type walker struct {
	streams map[uint16]*Stream
	order   []*Stream
	baud    int
	named   map[string]int
}

func (w *walker) visitor(msg func(*mcap.Message, *Stream) error) mcapfile.Visitor {
	schemas := map[uint16]string{}
	return mcapfile.Visitor{
		Schema: func(s *mcap.Schema) error { schemas[s.ID] = s.Name; return nil },
		Metadata: func(m *mcap.Metadata) error {
			if m.Name == mcapfile.CaptureMeta {
				if b, err := strconv.Atoi(m.Metadata["baud"]); err == nil && b > 0 {
					w.baud = b
				}
			}
			return nil
		},
		Channel: func(c *mcap.Channel) error {
			if _, ok := w.streams[c.ID]; ok || schemas[c.SchemaID] != mcapfile.RawSchemaName {
				return nil
			}
			s := &Stream{ID: c.ID, Topic: c.Topic, Kind: capture.Kind(c.Metadata["kind"])}
			if s.Kind != capture.Board && s.Kind != capture.Lidar {
				s.Kind = capture.Board
				if strings.Contains(c.Topic, "lidar") {
					s.Kind = capture.Lidar
				}
			}
			if strings.HasSuffix(c.Topic, "/tx") {
				s.Dir = capture.ToDevice
			}
			s.Baud = capture.DefaultBaud(s.Kind)
			if s.Dir == capture.FromDevice {
				base := "ttyACM0"
				if s.Kind == capture.Lidar {
					base = "lidar"
				}
				w.named[base]++
				s.Device = base
				if n := w.named[base]; n > 1 {
					s.Device = base + "-" + strconv.Itoa(n)
				}
			}
			w.streams[c.ID] = s
			w.order = append(w.order, s)
			return nil
		},
		Message: func(m *mcap.Message) error {
			s, ok := w.streams[m.ChannelID]
			if !ok {
				return nil
			}
			return msg(m, s)
		},
	}
}

func newWalker() *walker { return &walker{streams: map[uint16]*Stream{}, named: map[string]int{}} }

// Scan reads a capture (complete or cut) and describes its raw streams. A cut file is described to the
// cut (Recording.Cut says why it ended); a file with no raw stream is ErrNoStreams.
func Scan(r io.Reader, size int64) (*Recording, error) {
	w := newWalker()
	rec := &Recording{Size: size}
	n := 0
	walk, err := mcapfile.Read(r, w.visitor(func(m *mcap.Message, s *Stream) error {
		_, data, err := mcapfile.DecodeRaw(m.Data)
		if err != nil {
			s.BadChunk++
			return nil
		}
		if n == 0 || m.LogTime < rec.First {
			rec.First = m.LogTime
		}
		if m.LogTime > rec.Last {
			rec.Last = m.LogTime
		}
		n++
		s.Messages++
		s.Bytes += uint64(len(data))
		return nil
	}))
	if err != nil {
		return nil, err
	}
	rec.Cut, rec.Good = walk.Cut, walk.Good
	for _, s := range w.order {
		if w.baud > 0 && s.Kind == capture.Board {
			s.Baud = w.baud
		}
	}
	rec.Streams = w.order
	sort.SliceStable(rec.Streams, func(i, j int) bool { return rec.Streams[i].ID < rec.Streams[j].ID })
	if len(rec.Streams) == 0 {
		return rec, ErrNoStreams
	}
	return rec, nil
}

// Each hands out the raw messages of a capture in file order (the recorder's order: by time within a
// stream). A cut file ends at the cut without an error; fn's error ends the read and is returned.
func Each(r io.Reader, fn func(Message) error) error {
	w := newWalker()
	_, err := mcapfile.Read(r, w.visitor(func(m *mcap.Message, s *Stream) error {
		seq, data, err := mcapfile.DecodeRaw(m.Data)
		if err != nil {
			return nil
		}
		return fn(Message{Stream: s, Time: m.LogTime, Seq: seq, Data: data})
	}))
	return err
}

// String is a one-line description of a stream.
func (s *Stream) String() string {
	dev := ""
	if s.Device != "" {
		dev = " -> " + s.Device
	}
	return fmt.Sprintf("%s (%s, %d baud): %d messages, %d bytes%s", s.Topic, s.Kind, s.Baud, s.Messages, s.Bytes, dev)
}
