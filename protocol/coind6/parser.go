package coind6

import (
	"github.com/rosorin/rosorin/protocol/internal/streambuf"
)

// Stats counts what a Parser has seen; like the board parser's, the counts do not depend on chunking.
type Stats struct {
	Packets      uint64 // valid packets emitted
	BadChecksum  uint64 // candidates rejected by checksum (resynchronised by two bytes)
	SkippedBytes uint64 // bytes that belong to no valid packet
}

// Parser is a streaming packet parser with the chapter 14 rules: find AA 55, wait for the whole packet, keep
// it only if the checksum verifies, otherwise drop the two header bytes and search again. The zero value is
// ready to use; one goroutine owns it.
type Parser struct {
	buf   streambuf.Buffer
	stats Stats
}

// Feed parses chunk and calls emit with each valid packet's bytes (header to last sample), in order. The
// slice aliases internal or caller memory and is valid only during the call.
func (p *Parser) Feed(chunk []byte, emit func(pkt []byte)) {
	p.FeedTail(chunk, func(pkt []byte, _ int) { emit(pkt) })
}

// FeedTail is Feed that also tells emit how many bytes of chunk follow the packet (PacketClock's tail).
func (p *Parser) FeedTail(chunk []byte, emit func(pkt []byte, tail int)) {
	p.buf.Feed(chunk, func(data []byte) int { return p.scan(data, emit) })
}

// Stats returns the counters so far.
func (p *Parser) Stats() Stats { return p.stats }

// Pending returns the number of buffered bytes of an unfinished packet.
func (p *Parser) Pending() int { return p.buf.Len() }

// Reset drops buffered bytes (after a reopen) and keeps the counters.
func (p *Parser) Reset() { p.buf.Reset() }

func (p *Parser) scan(data []byte, emit func([]byte, int)) int {
	i := 0
	for i < len(data) {
		var ok bool
		if i, ok = streambuf.FindHeader(data, i, 0xAA, 0x55, &p.stats.SkippedBytes); !ok {
			return i
		}
		if i+HeaderLen > len(data) {
			return i
		}
		end := i + HeaderLen + SampleLen*int(data[i+3])
		if end > len(data) {
			return i
		}
		pkt := data[i:end]
		if Checksum(pkt) != w16(pkt, 8) {
			p.stats.BadChecksum++
			p.stats.SkippedBytes += 2
			i += 2 // "resync by 2": the 55 can never start a header
			continue
		}
		p.stats.Packets++
		emit(pkt, len(data)-end) // data ends where the chunk does
		i = end
	}
	return i
}
