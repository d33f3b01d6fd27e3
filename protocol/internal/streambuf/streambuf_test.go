package streambuf

import (
	"bytes"
	"testing"
)

// TestFeedKeepsTail: a scan that consumes whole 3-byte records sees every record exactly once however the
// input is cut, the tail stays pending between chunks, and the caller's chunk may be overwritten after
// Feed returns.
func TestFeedKeepsTail(t *testing.T) {
	data := []byte("abcdefghijklmnopqrstuvwxyz0")
	for _, size := range []int{1, 2, 3, 4, 5, 27} {
		var b Buffer
		var got []string
		scan := func(d []byte) int {
			n := len(d) / 3 * 3
			for i := 0; i < n; i += 3 {
				got = append(got, string(d[i:i+3]))
			}
			return n
		}
		for rest := data; len(rest) > 0; {
			chunk := bytes.Clone(rest[:min(size, len(rest))])
			b.Feed(chunk, scan)
			clear(chunk)
			rest = rest[len(chunk):]
		}
		if len(got) != 9 || got[0] != "abc" || got[8] != "yz0" || b.Len() != 0 {
			t.Errorf("chunks of %d: records %q, %d pending", size, got, b.Len())
		}
		b.Feed([]byte("xy"), scan)
		if b.Len() != 2 {
			t.Errorf("chunks of %d: %d pending after a partial record, want 2", size, b.Len())
		}
		b.Reset()
		if b.Len() != 0 {
			t.Errorf("Reset left %d bytes", b.Len())
		}
	}
}

func TestFindHeader(t *testing.T) {
	for _, c := range []struct {
		data    string
		from    int
		n       int
		ok      bool
		skipped uint64
	}{
		{"", 0, 0, false, 0},
		{"xyAUrest", 0, 2, true, 2},
		{"AUAU", 1, 2, true, 1},
		{"AxAAU", 0, 3, true, 3}, // A not followed by U is skipped, the second A starts the header
		{"xxA", 0, 2, false, 2},  // a trailing A may begin a header
		{"xxxx", 0, 4, false, 4},
		{"AUxx", 4, 4, false, 0},
	} {
		var skipped uint64
		n, ok := FindHeader([]byte(c.data), c.from, 'A', 'U', &skipped)
		if n != c.n || ok != c.ok || skipped != c.skipped {
			t.Errorf("FindHeader(%q, %d) = %d, %v, skipped %d; want %d, %v, %d", c.data, c.from, n, ok, skipped, c.n, c.ok, c.skipped)
		}
	}
}
