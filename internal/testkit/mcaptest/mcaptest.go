// Package mcaptest holds test helpers for MCAP captures read back by capture/mcapfile, the independent
// reader. It is apart from internal/testkit because mcapfile's own tests use testkit.
package mcaptest

import (
	"testing"

	"github.com/rosorin/rosorin/capture/mcapfile"
)

// Describe describes the file at path (mcapfile.DescribeFile, no gap report), failing the test if it cannot
// be read.
func Describe(t testing.TB, path string) *mcapfile.Info {
	t.Helper()
	info, err := mcapfile.DescribeFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// Messages describes the file at path and returns its description and the messages per topic. A channel
// with sequence gaps (a lost message) is a test error.
func Messages(t testing.TB, path string) (*mcapfile.Info, map[string]uint64) {
	t.Helper()
	info := Describe(t, path)
	got := map[string]uint64{}
	for _, c := range info.Channels {
		got[c.Topic] = c.Messages
		if c.SeqGaps != 0 {
			t.Errorf("%s: %d sequence gaps", c.Topic, c.SeqGaps)
		}
	}
	return info, got
}

// Bytes describes the file at path and returns its bytes per topic (raw channels: serial bytes; others:
// payload bytes). Sequence gaps are not checked: a recovered file may end in a cut.
func Bytes(t testing.TB, path string) map[string]uint64 {
	t.Helper()
	got := map[string]uint64{}
	for _, c := range Describe(t, path).Channels {
		got[c.Topic] = c.Bytes
	}
	return got
}
