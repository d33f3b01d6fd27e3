package capture

import (
	"fmt"
	"slices"
	"time"

	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/protocol/rosmsg"
)

// Direction is which way raw bytes went.
type Direction uint8

// Directions of a serial stream.
const (
	FromDevice Direction = iota // device -> host (rx)
	ToDevice                    // host -> device (tx)
)

// RawTopic is the raw channel of a device kind and direction: /serial/board/rx, /serial/board/tx, ...
func RawTopic(k Kind, d Direction) string {
	if d == ToDevice {
		return "/serial/" + string(k) + "/tx"
	}
	return "/serial/" + string(k) + "/rx"
}

// Convert turns the records of one read or write, made at t, into messages of one decoded channel, handing
// each to emit. It is made per stream (NewConvert) and may keep state across reads (a scan assembler, the
// wheels' last commanded speeds, the IMU stamper); one goroutine owns it.
type Convert func(t time.Time, recs []Record, emit func(rosmsg.Message))

// DecodedChannel declares one decoded channel: the stream it is decoded from (Kind and Dir), its topic, its
// ROS type (from the message type it was registered with) and how to make its converter. Each channel is
// declared in its own file (channel_*.go) with RegisterChannel.
type DecodedChannel struct {
	Topic string
	Type  string // set by RegisterChannel: rosmsg.Message.ROSType() of the registered message type
	Kind  Kind
	Dir   Direction
	// Rank orders the channels of one stream in a recording (channel ids; readers that list channels show
	// them in this order): the order they were introduced in, a new channel takes the next.
	Rank       int
	NewConvert func() Convert
}

var registry []DecodedChannel

// RegisterChannel declares decoded channel c, of messages of proto's type (proto may be a nil pointer of
// the type: only its ROSType is read, and it sets c.Type). It is for package initialisation: a topic
// registered twice, two channels of one stream with one rank, or a type without a schema panic.
func RegisterChannel(c DecodedChannel, proto rosmsg.Message) DecodedChannel {
	c.Type = proto.ROSType()
	if _, err := rosmsg.Schema(c.Type); err != nil {
		panic(fmt.Sprintf("capture: decoded channel %s: %v", c.Topic, err))
	}
	for _, o := range registry {
		if o.Topic == c.Topic || (o.Kind == c.Kind && o.Dir == c.Dir && o.Rank == c.Rank) {
			panic("capture: decoded channel " + c.Topic + " registered twice (topic or rank)")
		}
	}
	registry = append(registry, c)
	return c
}

// DecodedChannels are the decoded channels of one raw stream, by rank.
func DecodedChannels(kind Kind, dir Direction) []DecodedChannel {
	var out []DecodedChannel
	for _, c := range registry {
		if c.Kind == kind && c.Dir == dir {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b DecodedChannel) int { return a.Rank - b.Rank })
	return out
}

// Sink is where a Decoded writes its messages, by topic: a recording's channels (NewDecoded), a
// rotating segment series (package capture/segment), a test's slice. t is the log time: the time of the
// read or write the message was decoded from.
type Sink interface {
	WriteMessage(topic string, t time.Time, m rosmsg.Message) error
}

// Decoded decodes one raw stream (a kind and a direction) into its decoded channels (DecodedChannels) on a
// Sink. One goroutine owns a Decoded; it never blocks on anything but the sink.
type Decoded struct {
	sink    Sink
	kind    Kind
	dir     Direction
	dec     *Decoder
	chans   []DecodedChannel
	convs   []Convert
	recs    []Record
	err     error
	Written uint64 // decoded messages written
}

// NewDecodedTo returns the decoder of one raw stream writing to sink, which must take the topics of
// DecodedChannels(kind, dir).
func NewDecodedTo(sink Sink, kind Kind, dir Direction) (*Decoded, error) {
	dec, err := NewDecoder(kind)
	if err != nil {
		return nil, err
	}
	d := &Decoded{sink: sink, kind: kind, dir: dir, dec: dec, chans: DecodedChannels(kind, dir)}
	for _, c := range d.chans {
		d.convs = append(d.convs, c.NewConvert())
	}
	return d, nil
}

// NewDecoded registers the decoded channels of one raw stream on rec (a channel without messages still says
// what the stream could have held) and returns its decoder writing there.
func NewDecoded(rec *mcapfile.Recorder, kind Kind, dir Direction) (*Decoded, error) {
	s := &recorderSink{rec: rec, chans: map[string]*mcapfile.Channel{}}
	for _, c := range DecodedChannels(kind, dir) {
		ch, err := rec.MessageChannel(c.Topic, c.Type)
		if err != nil {
			return nil, err
		}
		s.chans[c.Topic] = ch
	}
	return NewDecodedTo(s, kind, dir)
}

var _ Sink = (*recorderSink)(nil)

// recorderSink writes decoded messages on the channels NewDecoded registered on one recording.
type recorderSink struct {
	rec   *mcapfile.Recorder
	chans map[string]*mcapfile.Channel
}

// WriteMessage writes m on topic's channel.
func (s *recorderSink) WriteMessage(topic string, t time.Time, m rosmsg.Message) error {
	c, ok := s.chans[topic]
	if !ok {
		return fmt.Errorf("capture: no channel %s on this recording", topic)
	}
	return s.rec.WriteMessage(c, t, m)
}

// Feed decodes bytes that were read or written at t and records what they held. The error is the sink's
// (recording stopped); decoding errors are only counted (see Summary).
func (d *Decoded) Feed(t time.Time, data []byte) error {
	if d.err != nil {
		return d.err
	}
	d.recs = d.recs[:0]
	d.dec.Feed(data, func(r Record) { d.recs = append(d.recs, r) })
	if len(d.recs) == 0 {
		return nil
	}
	for i, conv := range d.convs {
		topic := d.chans[i].Topic
		conv(t, d.recs, func(m rosmsg.Message) {
			if d.err != nil {
				return
			}
			if d.err = d.sink.WriteMessage(topic, t, m); d.err == nil {
				d.Written++
			}
		})
	}
	clear(d.recs) // the records are the decoder's to drop
	return d.err
}

// Summary is the decoder's count of frames, bad checksums and skipped bytes so far.
func (d *Decoded) Summary() Summary { return d.dec.Summary() }

// String names the stream for messages.
func (d *Decoded) String() string { return fmt.Sprintf("%s %s", d.kind, RawTopic(d.kind, d.dir)) }
