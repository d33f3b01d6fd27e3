package proofrec

import (
	"fmt"
	"io"
	"strings"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rosorin/rosorin/capture/mcapfile"
)

// ChannelAudit is what AuditFile found on one channel.
type ChannelAudit struct {
	Topic    string
	Messages int
	// Duplicates counts messages whose log time and payload equal an earlier message's on the channel.
	Duplicates int
	// Backwards counts messages whose log time is before the previous message's on the channel (in file
	// order); MaxBack is the largest such step back.
	Backwards int
	MaxBack   uint64 // ns
}

// Audit is AuditFile's result: one entry per channel, in the order the channels appear.
type Audit []ChannelAudit

// Clean reports whether no channel repeats a message or steps back in log time.
func (a Audit) Clean() bool {
	for _, c := range a {
		if c.Duplicates > 0 || c.Backwards > 0 {
			return false
		}
	}
	return true
}

func (a Audit) String() string {
	var b strings.Builder
	for _, c := range a {
		fmt.Fprintf(&b, "%s: %d messages, %d repeated, %d steps back in log time", c.Topic, c.Messages, c.Duplicates, c.Backwards)
		if c.Backwards > 0 {
			fmt.Fprintf(&b, " (largest %.3f s)", float64(c.MaxBack)/1e9)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// AuditFile reads an MCAP file and counts, per channel, repeated messages (the same log time and
// payload twice) and steps back in log time in file order: a proof recording has neither (issue 17 found
// 605 of 1760 /proof/imu samples written twice and a 5.5 s step back).
func AuditFile(r io.Reader) (Audit, error) {
	var out Audit
	at := map[uint16]int{}
	seen := map[uint16]map[string]bool{}
	last := map[uint16]uint64{}
	_, err := mcapfile.Read(r, mcapfile.Visitor{
		Channel: func(c *mcap.Channel) error {
			if _, ok := at[c.ID]; !ok {
				at[c.ID] = len(out)
				out = append(out, ChannelAudit{Topic: c.Topic})
				seen[c.ID] = map[string]bool{}
			}
			return nil
		},
		Message: func(m *mcap.Message) error {
			i, ok := at[m.ChannelID]
			if !ok {
				return fmt.Errorf("message on channel %d before its channel record", m.ChannelID)
			}
			c := &out[i]
			key := fmt.Sprintf("%d/%s", m.LogTime, m.Data)
			if seen[m.ChannelID][key] {
				c.Duplicates++
			}
			seen[m.ChannelID][key] = true
			if c.Messages > 0 && m.LogTime < last[m.ChannelID] {
				c.Backwards++
				c.MaxBack = max(c.MaxBack, last[m.ChannelID]-m.LogTime)
			}
			last[m.ChannelID] = m.LogTime
			c.Messages++
			return nil
		},
	})
	return out, err
}
