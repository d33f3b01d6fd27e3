package stoplog

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"

	"github.com/rosorin/rosorin/driver/api"
)

// The line format (doc.go): eight lowercase hex digits of the CRC-32C (Castagnoli) of the JSON payload, one
// space, the payload (one api.StopRecord, no newline inside), a newline.
const crcLen = 8

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// AppendLine appends rec's line to dst. It fails only for a record JSON cannot encode (a NaN or an infinity).
func AppendLine(dst []byte, rec api.StopRecord) ([]byte, error) {
	payload, err := json.Marshal(rec)
	if err != nil {
		return dst, fmt.Errorf("stop record seq %d cannot be encoded: %w", rec.Seq, err)
	}
	var sum [4]byte
	c := crc32c(payload)
	sum[0], sum[1], sum[2], sum[3] = byte(c>>24), byte(c>>16), byte(c>>8), byte(c)
	dst = hex.AppendEncode(dst, sum[:])
	dst = append(dst, ' ')
	dst = append(dst, payload...)
	return append(dst, '\n'), nil
}

// BadRecord names one line of a segment that is not a good record: skipped by every reader, never fatal.
type BadRecord struct {
	File   string // the segment's path
	Line   int    // from 1
	Offset int64  // the line's first byte in the file
	Why    string
	// Torn is a last line without its newline: a write the process or the machine did not finish. Open cuts
	// it off the newest segment (the only one still written); readers skip it.
	Torn bool
}

func (b BadRecord) Error() string {
	return fmt.Sprintf("stop log %s line %d (byte %d): %s", b.File, b.Line, b.Offset, b.Why)
}

// Segment is one parsed segment file.
type Segment struct {
	Records []api.StopRecord
	Bad     []BadRecord
	// End is the offset just past the last complete line: the file's size unless its last line is torn.
	End int64
}

// ParseSegment parses one segment's bytes; name is what BadRecord.File says. It never fails: a line that is
// not a good record (torn, checksum mismatch, not a stop record, seq 0) is named in Bad and skipped, and
// every good line around it is kept. It does no I/O.
func ParseSegment(name string, b []byte) Segment {
	var s Segment
	off := 0
	for line := 1; off < len(b); line++ {
		nl := bytes.IndexByte(b[off:], '\n')
		if nl < 0 {
			s.Bad = append(s.Bad, BadRecord{File: name, Line: line, Offset: int64(off), Torn: true,
				Why: fmt.Sprintf("torn last line: %d bytes without a newline", len(b)-off)})
			break
		}
		rec, why := parseLine(b[off : off+nl])
		if why != "" {
			s.Bad = append(s.Bad, BadRecord{File: name, Line: line, Offset: int64(off), Why: why})
		} else {
			s.Records = append(s.Records, rec)
		}
		off += nl + 1
		s.End = int64(off)
	}
	return s
}

// parseLine checks and decodes one line without its newline; why is "" for a good record.
func parseLine(l []byte) (rec api.StopRecord, why string) {
	if len(l) < crcLen+2 || l[crcLen] != ' ' {
		return rec, fmt.Sprintf("not a stop log line (%d bytes, no checksum field)", len(l))
	}
	var sum [4]byte
	if n, err := hex.Decode(sum[:], l[:crcLen]); err != nil || n != 4 || bytes.ContainsAny(l[:crcLen], "ABCDEF") {
		return rec, fmt.Sprintf("bad checksum field %q", l[:crcLen])
	}
	want := uint32(sum[0])<<24 | uint32(sum[1])<<16 | uint32(sum[2])<<8 | uint32(sum[3])
	payload := l[crcLen+1:]
	if got := crc32c(payload); got != want {
		return rec, fmt.Sprintf("checksum mismatch (line says %08x, payload is %08x): a damaged record", want, got)
	}
	if err := json.Unmarshal(payload, &rec); err != nil {
		return api.StopRecord{}, fmt.Sprintf("checksum good but not a stop record: %v", err)
	}
	if rec.Seq == 0 {
		return api.StopRecord{}, "a stop record without a seq"
	}
	return rec, ""
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
