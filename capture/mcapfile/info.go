package mcapfile

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/foxglove/mcap/go/mcap"
)

// ChannelInfo describes one channel of a file.
type ChannelInfo struct {
	ID        uint16
	Topic     string
	Schema    string
	Kind      string // raw channels: board or lidar
	Messages  uint64
	Bytes     uint64 // raw channels: serial bytes; others: payload bytes
	First     uint64 // log times, ns
	Last      uint64
	SeqGaps   uint64 // messages whose sequence number was not the previous one + 1
	Gaps      []Gap  // silences longer than the threshold
	schemaID  uint16
	lastSeq   uint32
	seenFirst bool
}

// Gap is a silence on a channel: no message between From and To (log times, ns).
type Gap struct{ From, To uint64 }

// Duration is the channel's span.
func (c *ChannelInfo) Duration() time.Duration { return time.Duration(c.Last - c.First) }

// Rate is messages per second over the channel's span (0 for fewer than two messages).
func (c *ChannelInfo) Rate() float64 {
	if c.Messages < 2 || c.Last <= c.First {
		return 0
	}
	return float64(c.Messages-1) / c.Duration().Seconds()
}

// Info describes a file: what `capture info` prints.
type Info struct {
	Profile  string
	Library  string
	Size     int64
	Good     int64
	Ended    string
	Cut      error
	Messages uint64
	Start    uint64
	End      uint64
	Channels []*ChannelInfo
	Metadata []*mcap.Metadata
}

// Duration is the span of all messages.
func (i *Info) Duration() time.Duration {
	if i.End < i.Start {
		return 0
	}
	return time.Duration(i.End - i.Start)
}

// Describe reads r (size bytes) linearly and reports channels, counts, rates and gaps longer than gap (0:
// none reported).
func Describe(r io.Reader, size int64, gap time.Duration) (*Info, error) {
	info := &Info{Size: size}
	schemas := map[uint16]string{}
	chans := map[uint16]*ChannelInfo{}
	recovered := false
	walk, err := Read(r, Visitor{
		Header: func(h *mcap.Header) error { info.Profile, info.Library = h.Profile, h.Library; return nil },
		Schema: func(s *mcap.Schema) error { schemas[s.ID] = s.Name; return nil },
		Channel: func(c *mcap.Channel) error {
			if _, ok := chans[c.ID]; !ok {
				chans[c.ID] = &ChannelInfo{ID: c.ID, Topic: c.Topic, Kind: c.Metadata["kind"], schemaID: c.SchemaID}
			}
			return nil
		},
		Message: func(m *mcap.Message) error {
			c, ok := chans[m.ChannelID]
			if !ok {
				return nil
			}
			if info.Messages == 0 || m.LogTime < info.Start {
				info.Start = m.LogTime
			}
			if m.LogTime > info.End {
				info.End = m.LogTime
			}
			info.Messages++
			n := uint64(len(m.Data))
			if schemas[c.schemaID] == RawSchemaName {
				if _, d, err := DecodeRaw(m.Data); err == nil {
					n = uint64(len(d))
				}
			}
			if c.seenFirst {
				if m.Sequence != c.lastSeq+1 {
					c.SeqGaps++
				}
				if gap > 0 && m.LogTime > c.Last && m.LogTime-c.Last > uint64(gap) {
					c.Gaps = append(c.Gaps, Gap{c.Last, m.LogTime})
				}
			} else {
				c.First = m.LogTime
				c.seenFirst = true
			}
			c.lastSeq = m.Sequence
			if m.LogTime > c.Last {
				c.Last = m.LogTime
			}
			c.Messages++
			c.Bytes += n
			return nil
		},
		Metadata: func(m *mcap.Metadata) error {
			if m.Name == RecoveryMeta {
				recovered = true
			}
			info.Metadata = append(info.Metadata, m)
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	info.Good, info.Cut, info.Ended = walk.Good, walk.Cut, ended(walk, recovered)
	for _, id := range sortedIDs(chans) {
		c := chans[id]
		c.Schema = schemas[c.schemaID]
		info.Channels = append(info.Channels, c)
	}
	return info, nil
}

// DescribeFile is Describe on a named file.
func DescribeFile(name string, gap time.Duration) (*Info, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	info, err := Describe(f, st.Size(), gap)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return info, nil
}
