package coind6

import "time"

// ByteTime is one byte's time on the line at Baud (8N1: ten bits a byte), 43.4 µs.
const ByteTime = time.Second * 10 / Baud

// PacketClock stamps packets by their place in the read that brought them: a read returned at readAt with
// tail bytes after a packet's last byte puts that packet at readAt - tail x ByteTime (the bytes after it
// came at the line rate, at the latest). Stamps strictly increase: a packet that would not come after the
// previous one (a read's first packets, backdated past the read before it) gets the previous stamp plus
// 1 ns. One read that holds two revolutions (a reader stalled 0.1 s) so gives them different stamps,
// where the read's time alone would give both the same one. The zero value is ready to use.
type PacketClock struct{ last time.Time }

// At is the stamp of a packet with tail bytes after it in a read returned at readAt.
func (c *PacketClock) At(readAt time.Time, tail int) time.Time {
	t := readAt.Add(-time.Duration(tail) * ByteTime)
	if !c.last.IsZero() && !t.After(c.last) {
		t = c.last.Add(time.Nanosecond)
	}
	c.last = t
	return t
}

// Reset forgets the last stamp (after a reopen).
func (c *PacketClock) Reset() { c.last = time.Time{} }
