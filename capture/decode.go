package capture

import (
	"errors"
	"fmt"
	"io"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// Kind is the kind of stream a capture holds.
type Kind string

// Stream kinds.
const (
	Board Kind = "board" // controller board frames (both directions of /dev/ttyACM0)
	Lidar Kind = "lidar" // COIN-D6 packets (/dev/lidar)
)

// ParseKind parses a kind name as given on a command line.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Board, Lidar:
		return k, nil
	}
	return "", fmt.Errorf("unknown capture kind %q: use board (controller board frames) or lidar (COIN-D6 packets)", s)
}

// Record is one frame or packet found in a capture: a *BoardRecord or a *LidarRecord. Each marshals to one
// JSON object.
type Record interface {
	// Span returns the record's byte offset in the input and its size in bytes.
	Span() (offset int64, size int)
	MarshalJSON() ([]byte, error)
}

var (
	_ Record = (*BoardRecord)(nil)
	_ Record = (*LidarRecord)(nil)
)

// BoardRecord is one valid board frame (its CRC verified).
type BoardRecord struct {
	Offset int64
	Frame  board.Frame // Payload is the record's own copy
	Value  any         // board.Decode's value (board.IMU, board.Battery, ...); nil when Err is set
	Err    error       // why the payload was not decoded (a *board.PayloadError)
}

// Span implements Record.
func (r *BoardRecord) Span() (int64, int) { return r.Offset, len(r.Frame.Payload) + board.Overhead }

// NotDecoded reports whether the frame has a known function this toolkit has no decoder for (servos, SBUS,
// OLED, RGB), as opposed to a payload the decoder refused.
func (r *BoardRecord) NotDecoded() bool { return errors.Is(r.Err, board.ErrUnknownFunc) }

// LidarRecord is one valid COIN-D6 packet (its checksum verified).
type LidarRecord struct {
	Offset int64
	Raw    []byte        // the packet's bytes, the record's own copy
	Packet coind6.Packet // decoded; zero when Err is set
	Err    error
	Tail   int // bytes of the chunk that brought it after its last byte (coind6.PacketClock)
}

// Span implements Record.
func (r *LidarRecord) Span() (int64, int) { return r.Offset, len(r.Raw) }

// DefaultBaud is the line rate of a kind of device, defined by its protocol.
func DefaultBaud(k Kind) int {
	if k == Lidar {
		return coind6.Baud
	}
	return board.Baud
}

// Summary counts what a capture held. Records is the number of frames (board) or packets (lidar).
type Summary struct {
	Kind         Kind
	Bytes        uint64 // input bytes
	Records      uint64 // valid frames or packets emitted
	RecordBytes  uint64 // bytes inside them
	BadChecksum  uint64 // candidates rejected by their checksum (false headers, corrupted frames)
	UnknownFunc  uint64 // board only: headers followed by a function code >= 12
	SkippedBytes uint64 // bytes rejected while reading
	PendingBytes uint64 // bytes at the end of the input that belong to no complete frame
	BadPayload   uint64 // board: valid frames whose payload the decoder refused
	NotDecoded   uint64 // board: valid frames of functions without a decoder (servos, SBUS, ...)
	RingStarts   uint64 // lidar: revolution-start packets
	ByFunc       map[string]uint64
}

// stream is one of the two codecs' parsers seen through one interface: feed bytes, get records whose
// offsets are relative to base.
type stream interface {
	feed(chunk []byte, base int64, emit func(Record))
	counts() (bad, unknown, skipped uint64)
	pending() int
}

type boardStream struct {
	p          board.Parser
	frameBytes uint64
}

func (s *boardStream) feed(chunk []byte, base int64, emit func(Record)) {
	s.p.Feed(chunk, func(f board.Frame) {
		// Every byte before this frame is in an earlier frame or counted as skipped: that gives its offset.
		off := base + int64(s.frameBytes+s.p.Stats().SkippedBytes)
		s.frameBytes += uint64(len(f.Payload) + board.Overhead)
		r := &BoardRecord{Offset: off, Frame: board.Frame{Func: f.Func, Payload: append([]byte(nil), f.Payload...)}}
		r.Value, r.Err = board.Decode(r.Frame)
		emit(r)
	})
}

func (s *boardStream) counts() (uint64, uint64, uint64) {
	st := s.p.Stats()
	return st.BadChecksum, st.UnknownFunc, st.SkippedBytes
}

func (s *boardStream) pending() int { return s.p.Pending() }

type lidarStream struct {
	p        coind6.Parser
	pktBytes uint64
}

func (s *lidarStream) feed(chunk []byte, base int64, emit func(Record)) {
	s.p.FeedTail(chunk, func(pkt []byte, tail int) {
		off := base + int64(s.pktBytes+s.p.Stats().SkippedBytes)
		s.pktBytes += uint64(len(pkt))
		r := &LidarRecord{Offset: off, Raw: append([]byte(nil), pkt...), Tail: tail}
		r.Packet, r.Err = coind6.Decode(r.Raw)
		emit(r)
	})
}

func (s *lidarStream) counts() (uint64, uint64, uint64) {
	st := s.p.Stats()
	return st.BadChecksum, 0, st.SkippedBytes
}

func (s *lidarStream) pending() int { return s.p.Pending() }

// maxTail bounds the bytes a parser can hold pending: a COIN-D6 packet of 255 samples is 775 bytes, a
// board frame at most 260.
const maxTail = 1024

// Decoder decodes one capture fed in chunks. The zero value is not usable; call NewDecoder. One goroutine
// owns a Decoder.
type Decoder struct {
	kind    Kind
	s       stream
	total   int64
	tail    []byte // the last maxTail input bytes, for Close
	records uint64
	recB    uint64
	extra   struct{ bad, unknown uint64 } // found by Close in the pending tail
	pend    int64                         // set by Close
	closed  bool
	payload struct{ bad, notDecoded, rings uint64 }
	byFunc  map[string]uint64
}

// NewDecoder returns a decoder for a capture of the given kind.
func NewDecoder(kind Kind) (*Decoder, error) {
	if _, err := ParseKind(string(kind)); err != nil {
		return nil, err
	}
	return &Decoder{kind: kind, s: newStream(kind), tail: make([]byte, 0, 2*maxTail), byFunc: map[string]uint64{}}, nil
}

func newStream(kind Kind) stream {
	if kind == Lidar {
		return &lidarStream{}
	}
	return &boardStream{}
}

// Feed decodes the next chunk of the capture and calls emit for each record, in input order. Records own
// their data. Feeding after Close is a programming error and panics.
func (d *Decoder) Feed(chunk []byte, emit func(Record)) {
	if d.closed {
		panic("capture: Decoder.Feed after Close")
	}
	d.s.feed(chunk, 0, func(r Record) { d.count(r); emit(r) })
	d.total += int64(len(chunk))
	if len(chunk) >= maxTail {
		d.tail = append(d.tail[:0], chunk[len(chunk)-maxTail:]...)
	} else {
		if len(d.tail)+len(chunk) > cap(d.tail) {
			d.tail = append(d.tail[:0], d.tail[len(d.tail)-(maxTail-len(chunk)):]...)
		}
		d.tail = append(d.tail, chunk...)
	}
}

func (d *Decoder) count(r Record) {
	_, size := r.Span()
	d.records++
	d.recB += uint64(size)
	switch r := r.(type) {
	case *BoardRecord:
		d.byFunc[board.FuncName(r.Frame.Func)]++
		if r.NotDecoded() {
			d.payload.notDecoded++
		} else if r.Err != nil {
			d.payload.bad++
		}
	case *LidarRecord:
		if r.Err != nil {
			d.payload.bad++
		} else if r.Packet.RingStart() {
			d.payload.rings++
		}
	}
}

// Close ends the input: the bytes still pending can no longer complete their frame, so the candidate that
// holds them is dropped byte by byte and the rest parsed again, emitting any real frame a false header at
// the end was hiding. It returns the final summary. Calling Close again returns the same summary.
func (d *Decoder) Close(emit func(Record)) Summary {
	if d.closed {
		return d.Summary()
	}
	d.closed = true
	n := d.s.pending()
	d.pend = int64(n)
	if n > len(d.tail) {
		return d.Summary() // unreachable with today's codecs (at most 775 bytes pending): report, do not drain
	}
	tail := d.tail[len(d.tail)-n:]
	base := d.total - int64(n)
	for len(tail) > 0 {
		tail, base = tail[1:], base+1 // the undecidable candidate's first byte
		sub := newStream(d.kind)
		sub.feed(tail, base, func(r Record) {
			_, size := r.Span()
			d.pend -= int64(size)
			d.count(r)
			emit(r)
		})
		bad, unknown, _ := sub.counts()
		d.extra.bad += bad
		d.extra.unknown += unknown
		m := sub.pending()
		base += int64(len(tail) - m)
		tail = tail[len(tail)-m:]
	}
	return d.Summary()
}

// Summary returns the counts so far; after Close, the final ones.
func (d *Decoder) Summary() Summary {
	bad, unknown, skipped := d.s.counts()
	s := Summary{
		Kind: d.kind, Bytes: uint64(d.total), Records: d.records, RecordBytes: d.recB,
		BadChecksum: bad + d.extra.bad, UnknownFunc: unknown + d.extra.unknown, SkippedBytes: skipped,
		PendingBytes: uint64(d.s.pending()),
		BadPayload:   d.payload.bad, NotDecoded: d.payload.notDecoded, RingStarts: d.payload.rings,
		ByFunc: make(map[string]uint64, len(d.byFunc)),
	}
	if d.closed {
		s.PendingBytes = uint64(d.pend)
	}
	for k, v := range d.byFunc {
		s.ByFunc[k] = v
	}
	return s
}

// ReadSize is the size of the reads Decode makes: the input is streamed, never held whole.
const ReadSize = 32 << 10

// Decode reads a whole capture from r, calling emit for each record in input order, and returns the
// summary. An error from emit stops the decoding and is returned. A read error other than io.EOF is
// returned wrapped, with the summary so far (not closed: the input did not end).
func Decode(r io.Reader, kind Kind, emit func(Record) error) (Summary, error) {
	d, err := NewDecoder(kind)
	if err != nil {
		return Summary{}, err
	}
	var emitErr error
	wrap := func(rec Record) {
		if emitErr == nil {
			emitErr = emit(rec)
		}
	}
	buf := make([]byte, ReadSize)
	for zeros := 0; ; {
		n, err := r.Read(buf)
		d.Feed(buf[:n], wrap)
		switch {
		case emitErr != nil:
			return d.Summary(), emitErr
		case errors.Is(err, io.EOF):
			s := d.Close(wrap)
			return s, emitErr
		case err != nil:
			return d.Summary(), fmt.Errorf("reading the capture after %d bytes: %w", d.total, err)
		case n == 0:
			// io.Reader allows (0, nil) but discourages it; a reader that never progresses is broken.
			if zeros++; zeros >= 100 {
				return d.Summary(), fmt.Errorf("reading the capture after %d bytes: %w", d.total, io.ErrNoProgress)
			}
		default:
			zeros = 0
		}
	}
}
