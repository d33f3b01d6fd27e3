package board

import (
	"github.com/rosorin/rosorin/protocol/internal/streambuf"
)

// Stats counts what a Parser has seen. Counts depend only on the bytes fed, never on how they were chunked:
// bytes still waiting for the rest of a frame are counted once that frame is decided.
type Stats struct {
	Frames       uint64 // valid frames emitted
	BadChecksum  uint64 // candidate frames whose CRC did not match (resynchronised by one byte)
	UnknownFunc  uint64 // headers followed by a function code >= FuncCount (dropped like the firmware)
	SkippedBytes uint64 // bytes that belong to no valid frame (garbage, false headers, corrupted frames)
}

// Parser is a streaming frame parser. Feed it any chunks: one byte at a time, whole captures, anything in
// between; it emits every valid frame exactly once. The zero value is ready to use. Not safe for concurrent
// use: one goroutine owns a Parser.
type Parser struct {
	buf   streambuf.Buffer // an unfinished frame (at most 259 bytes) or a trailing 0xAA
	stats Stats
}

// Feed parses chunk and calls emit for each complete, valid frame, in order. Frame.Payload aliases the
// parser's buffer or chunk and is valid only during the call: copy it to keep it.
func (p *Parser) Feed(chunk []byte, emit func(Frame)) {
	p.buf.Feed(chunk, func(data []byte) int { return p.scan(data, emit) })
}

// Stats returns the counters so far.
func (p *Parser) Stats() Stats { return p.stats }

// Pending returns the number of bytes buffered while waiting for the rest of a frame.
func (p *Parser) Pending() int { return p.buf.Len() }

// Reset drops buffered bytes (for example after the port was reopened) and keeps the counters.
func (p *Parser) Reset() { p.buf.Reset() }

// scan emits the complete frames in data and returns how many bytes were consumed. Unconsumed bytes start
// with a header (or a lone 0xAA) whose frame is not complete yet.
func (p *Parser) scan(data []byte, emit func(Frame)) int {
	i := 0
	for i < len(data) {
		var ok bool
		if i, ok = streambuf.FindHeader(data, i, Header0, Header1, &p.stats.SkippedBytes); !ok {
			return i // the end, or a lone 0xAA that may be the start of a header
		}
		if i+2 >= len(data) {
			return i
		}
		fn := data[i+2]
		if fn >= FuncCount {
			// Decided on this byte alone, so a false header with an invalid code never makes the parser
			// wait for up to 255 bytes of a "payload".
			p.stats.UnknownFunc++
			p.stats.SkippedBytes++
			i++
			continue
		}
		if i+3 >= len(data) {
			return i
		}
		end := i + Overhead + int(data[i+3])
		if end > len(data) {
			return i
		}
		if CRC8(data[i+2:end-1]) != data[end-1] {
			// A false AA 55 inside a payload, or a corrupted frame: drop only the first header byte and search
			// again, so the real frame behind it is still found.
			p.stats.BadChecksum++
			p.stats.SkippedBytes++
			i++
			continue
		}
		p.stats.Frames++
		emit(Frame{Func: fn, Payload: data[i+4 : end-1]})
		i = end
	}
	return i
}
