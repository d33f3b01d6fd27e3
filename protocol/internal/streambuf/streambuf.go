// Package streambuf keeps a stream parser's unfinished tail between chunks, so that its scan sees every
// candidate frame whole however the input was cut. Shared by protocol/board and protocol/coind6; pure, no
// I/O.
package streambuf

import "bytes"

// Buffer holds the bytes a scan left unconsumed. The zero value is ready to use.
type Buffer struct{ b []byte }

// Feed runs scan over the pending tail followed by chunk and keeps what scan did not consume. scan returns
// how many leading bytes it consumed; the rest must start a frame that is not complete yet. With nothing
// pending (the common case) scan reads chunk itself and only the tail is copied.
func (b *Buffer) Feed(chunk []byte, scan func(data []byte) int) {
	if len(b.b) == 0 {
		n := scan(chunk)
		b.b = append(b.b, chunk[n:]...)
		return
	}
	b.b = append(b.b, chunk...)
	n := scan(b.b)
	b.b = b.b[:copy(b.b, b.b[n:])]
}

// Len is the number of pending bytes.
func (b *Buffer) Len() int { return len(b.b) }

// Reset drops the pending bytes.
func (b *Buffer) Reset() { b.b = b.b[:0] }

// FindHeader returns the index of the next two-byte header h0 h1 at or after i, adding the bytes it passes
// over to *skipped. ok is false when no whole header starts at or after i; n is then where the unconsumed
// tail starts (len(data), or a trailing h0 that may begin a header once more bytes come).
func FindHeader(data []byte, i int, h0, h1 byte, skipped *uint64) (n int, ok bool) {
	for {
		k := bytes.IndexByte(data[i:], h0)
		if k < 0 {
			*skipped += uint64(len(data) - i)
			return len(data), false
		}
		*skipped += uint64(k)
		i += k
		if i+1 >= len(data) {
			return i, false
		}
		if data[i+1] == h1 {
			return i, true
		}
		*skipped++ // an h0 not followed by h1
		i++
	}
}
