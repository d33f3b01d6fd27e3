package mcapfile

import (
	"fmt"
	"strings"

	"github.com/foxglove/mcap/go/mcap"
)

// Rosbag2Meta is the metadata record rosbag2's MCAP storage plugin writes (name "rosbag2", one key
// "serialized_metadata" holding the bag's metadata.yaml document); `ros2 bag info` and `ros2 bag play`
// of a lone .mcap file read the bag's description from it.
const (
	Rosbag2Meta    = "rosbag2"
	Rosbag2MetaKey = "serialized_metadata"
)

// topicCount is one channel of the rosbag2 description.
type topicCount struct {
	topic, typ, encoding, qos string
	count                     uint64
}

// rosbag2Metadata renders rosbag2's BagMetadata as Humble writes it (version 5, storage mcap, no
// compression): duration, starting time, message count, each topic with its type, serialization format,
// offered QoS profiles and count, and the one file. fileName may be empty (a stream with no name).
func rosbag2Metadata(fileName string, start, end, messages uint64, topics []topicCount) string {
	if messages == 0 || end < start {
		start, end = 0, 0
	}
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("rosbag2_bagfile_information:\n")
	p("  version: 5\n")
	p("  storage_identifier: mcap\n")
	p("  duration:\n    nanoseconds: %d\n", end-start)
	p("  starting_time:\n    nanoseconds_since_epoch: %d\n", start)
	p("  message_count: %d\n", messages)
	if len(topics) == 0 {
		p("  topics_with_message_count: []\n")
	} else {
		p("  topics_with_message_count:\n")
	}
	for _, t := range topics {
		p("    - topic_metadata:\n")
		p("        name: %s\n", yamlQuote(t.topic))
		p("        type: %s\n", yamlQuote(t.typ))
		p("        serialization_format: %s\n", yamlQuote(t.encoding))
		p("        offered_qos_profiles: %s\n", yamlQuote(t.qos))
		p("      message_count: %d\n", t.count)
	}
	p("  compression_format: \"\"\n")
	p("  compression_mode: \"\"\n")
	if fileName == "" {
		p("  relative_file_paths: []\n  files: []\n")
		return b.String()
	}
	p("  relative_file_paths:\n    - %s\n", yamlQuote(fileName))
	p("  files:\n    - path: %s\n", yamlQuote(fileName))
	p("      starting_time:\n        nanoseconds_since_epoch: %d\n", start)
	p("      duration:\n        nanoseconds: %d\n", end-start)
	p("      message_count: %d\n", messages)
	return b.String()
}

// yamlQuote is a YAML double-quoted scalar (the escapes yaml-cpp writes: backslash, quote, newline, tab,
// other control characters as \xNN).
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// rosbag2Counter gathers what rosbag2Metadata needs while Rewrite copies records.
type rosbag2Counter struct {
	start, end, messages uint64
	order                []uint16
	topics               map[uint16]*topicCount
}

func (c *rosbag2Counter) channel(ch *mcap.Channel, s *mcap.Schema) {
	if c.topics == nil {
		c.topics = map[uint16]*topicCount{}
	}
	if _, ok := c.topics[ch.ID]; ok {
		return
	}
	t := &topicCount{topic: ch.Topic, encoding: ch.MessageEncoding, qos: ch.Metadata["offered_qos_profiles"]}
	if s != nil {
		t.typ = s.Name
	}
	c.topics[ch.ID] = t
	c.order = append(c.order, ch.ID)
}

func (c *rosbag2Counter) message(m *mcap.Message) {
	if c.messages == 0 || m.LogTime < c.start {
		c.start = m.LogTime
	}
	if m.LogTime > c.end {
		c.end = m.LogTime
	}
	c.messages++
	if t, ok := c.topics[m.ChannelID]; ok {
		t.count++
	}
}

func (c *rosbag2Counter) record(fileName string) *mcap.Metadata {
	ts := make([]topicCount, 0, len(c.order))
	for _, id := range c.order {
		ts = append(ts, *c.topics[id])
	}
	return &mcap.Metadata{Name: Rosbag2Meta, Metadata: map[string]string{
		Rosbag2MetaKey: rosbag2Metadata(fileName, c.start, c.end, c.messages, ts)}}
}
