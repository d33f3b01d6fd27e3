package coind6

import "bytes"

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
	buf   []byte
	stats Stats
}

// Feed parses chunk and calls emit with each valid packet's bytes (header to last sample), in order. The
// slice aliases internal or caller memory and is valid only during the call.
func (p *Parser) Feed(chunk []byte, emit func(pkt []byte)) {
	if len(p.buf) == 0 {
		n := p.scan(chunk, emit)
		p.buf = append(p.buf, chunk[n:]...)
		return
	}
	p.buf = append(p.buf, chunk...)
	n := p.scan(p.buf, emit)
	p.buf = p.buf[:copy(p.buf, p.buf[n:])]
}

// Stats returns the counters so far.
func (p *Parser) Stats() Stats { return p.stats }

// Pending returns the number of buffered bytes of an unfinished packet.
func (p *Parser) Pending() int { return len(p.buf) }

// Reset drops buffered bytes (after a reopen) and keeps the counters.
func (p *Parser) Reset() { p.buf = p.buf[:0] }

func (p *Parser) scan(data []byte, emit func([]byte)) int {
	i := 0
	for i < len(data) {
		k := bytes.IndexByte(data[i:], 0xAA)
		if k < 0 {
			p.stats.SkippedBytes += uint64(len(data) - i)
			return len(data)
		}
		p.stats.SkippedBytes += uint64(k)
		i += k
		if i+1 >= len(data) {
			return i
		}
		if data[i+1] != 0x55 {
			p.stats.SkippedBytes++
			i++
			continue
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
		emit(pkt)
		i = end
	}
	return i
}
