package cdr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Encapsulation identifiers (the first two bytes of a serialized message).
const (
	CDRBE uint16 = 0x0000 // plain CDR, big endian
	CDRLE uint16 = 0x0001 // plain CDR, little endian: what Cyclone writes on x86 and ARM
)

// HeaderLen is the length of the encapsulation header.
const HeaderLen = 4

// Marshaler is a message that writes its body (without the header).
type Marshaler interface {
	MarshalCDR(w *Writer)
}

// Unmarshaler is a message that reads its body. It returns r.Err() (or nil); the Reader's first error sticks.
type Unmarshaler interface {
	UnmarshalCDR(r *Reader) error
}

// Marshal serializes m as little-endian plain CDR with its header.
func Marshal(m Marshaler) []byte {
	w := NewWriter(nil)
	m.MarshalCDR(w)
	return w.Bytes()
}

// Unmarshal reads a message with its header into m. Bytes left after the message are allowed (Cyclone pads
// the serialized size to a multiple of 4), up to 3 of them; more is an error, for a wrong type reads short.
func Unmarshal(b []byte, m Unmarshaler) error {
	r, err := NewReader(b)
	if err != nil {
		return err
	}
	if err := m.UnmarshalCDR(r); err != nil {
		return err
	}
	if left := r.Len(); left > 3 {
		return fmt.Errorf("cdr: %d bytes left after the message (%d bytes in all): not this type", left, len(b))
	}
	return nil
}

// Writer appends plain CDR to a buffer. It never fails.
type Writer struct {
	buf []byte
}

// NewWriter starts a little-endian message in buf (reused from its start; nil allocates) with its header.
func NewWriter(buf []byte) *Writer {
	return &Writer{buf: append(buf[:0], 0x00, 0x01, 0x00, 0x00)}
}

// Reset starts a new message in the same buffer.
func (w *Writer) Reset() { w.buf = append(w.buf[:0], 0x00, 0x01, 0x00, 0x00) }

// Bytes returns the message so far (header included). It aliases the Writer's buffer.
func (w *Writer) Bytes() []byte { return w.buf }

func (w *Writer) align(n int) {
	for (len(w.buf)-HeaderLen)%n != 0 {
		w.buf = append(w.buf, 0)
	}
}

func (w *Writer) Bool(v bool) {
	if v {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}
func (w *Writer) Uint8(v uint8) { w.buf = append(w.buf, v) }
func (w *Writer) Int8(v int8)   { w.buf = append(w.buf, byte(v)) }
func (w *Writer) Uint16(v uint16) {
	w.align(2)
	w.buf = binary.LittleEndian.AppendUint16(w.buf, v)
}
func (w *Writer) Int16(v int16) { w.Uint16(uint16(v)) }
func (w *Writer) Uint32(v uint32) {
	w.align(4)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, v)
}
func (w *Writer) Int32(v int32) { w.Uint32(uint32(v)) }
func (w *Writer) Uint64(v uint64) {
	w.align(8)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
}
func (w *Writer) Int64(v int64)     { w.Uint64(uint64(v)) }
func (w *Writer) Float32(v float32) { w.Uint32(math.Float32bits(v)) }
func (w *Writer) Float64(v float64) { w.Uint64(math.Float64bits(v)) }

// String writes a string: its length with the NUL, the bytes, the NUL.
func (w *Writer) String(s string) {
	w.Uint32(uint32(len(s) + 1))
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, 0)
}

// Len writes a sequence's element count.
func (w *Writer) Len(n int) { w.Uint32(uint32(n)) }

// Octets writes raw bytes (a uint8[] sequence's elements or a fixed octet array); no alignment.
func (w *Writer) Octets(b []byte) { w.buf = append(w.buf, b...) }

// Errors a Reader reports, for errors.Is.
var (
	ErrShort         = errors.New("cdr: message ends early")
	ErrEncapsulation = errors.New("cdr: unsupported encapsulation")
	ErrString        = errors.New("cdr: malformed string")
)

// Reader reads plain CDR. Its first error sticks: every later read returns zero values, and Err reports it,
// so a message's UnmarshalCDR reads all fields and checks once.
type Reader struct {
	b     []byte // the body, after the header
	off   int
	order binary.ByteOrder
	err   error
}

// NewReader checks the header and returns a Reader of the body.
func NewReader(b []byte) (*Reader, error) {
	if len(b) < HeaderLen {
		return nil, fmt.Errorf("%w: %d bytes, not even the 4-byte header", ErrShort, len(b))
	}
	r := &Reader{b: b[HeaderLen:]}
	switch id := binary.BigEndian.Uint16(b); id {
	case CDRLE:
		r.order = binary.LittleEndian
	case CDRBE:
		r.order = binary.BigEndian
	case 0x0002, 0x0003:
		return nil, fmt.Errorf("%w: parameter-list CDR (%02x %02x, PL_CDR) is for keyed/mutable types; ROS 2 Humble messages are plain CDR (00 01)", ErrEncapsulation, b[0], b[1])
	case 0x0006, 0x0007, 0x0008, 0x0009, 0x000a, 0x000b:
		return nil, fmt.Errorf("%w: XCDR2 (%02x %02x) is not what Humble's rmw_cyclonedds writes; want plain CDR (00 01)", ErrEncapsulation, b[0], b[1])
	default:
		return nil, fmt.Errorf("%w: %02x %02x; want plain CDR (00 01 little endian or 00 00 big endian)", ErrEncapsulation, b[0], b[1])
	}
	return r, nil
}

// Err is the first error met, or nil.
func (r *Reader) Err() error { return r.err }

// Len is the number of body bytes not yet read.
func (r *Reader) Len() int { return len(r.b) - r.off }

// Fail records err as the Reader's error unless one is already recorded (for a message's own checks).
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// take aligns to align and returns the next n bytes, or nil after recording ErrShort.
func (r *Reader) take(align, n int) []byte {
	if r.err != nil {
		return nil
	}
	off := r.off
	if rem := off % align; rem != 0 {
		off += align - rem
	}
	if off > len(r.b) || n > len(r.b)-off {
		r.err = fmt.Errorf("%w: %d bytes wanted at body offset %d, %d in the body", ErrShort, n, off, len(r.b))
		return nil
	}
	r.off = off + n
	return r.b[off : off+n]
}

func (r *Reader) Uint8() uint8 {
	if b := r.take(1, 1); b != nil {
		return b[0]
	}
	return 0
}
func (r *Reader) Int8() int8 { return int8(r.Uint8()) }

// Bool reads a boolean; any byte other than 0 and 1 is an error (it is not a bool of this type).
func (r *Reader) Bool() bool {
	v := r.Uint8()
	if v > 1 && r.err == nil {
		r.err = fmt.Errorf("cdr: boolean byte %#02x (want 0 or 1)", v)
	}
	return v == 1
}
func (r *Reader) Uint16() uint16 {
	if b := r.take(2, 2); b != nil {
		return r.order.Uint16(b)
	}
	return 0
}
func (r *Reader) Int16() int16 { return int16(r.Uint16()) }
func (r *Reader) Uint32() uint32 {
	if b := r.take(4, 4); b != nil {
		return r.order.Uint32(b)
	}
	return 0
}
func (r *Reader) Int32() int32 { return int32(r.Uint32()) }
func (r *Reader) Uint64() uint64 {
	if b := r.take(8, 8); b != nil {
		return r.order.Uint64(b)
	}
	return 0
}
func (r *Reader) Int64() int64     { return int64(r.Uint64()) }
func (r *Reader) Float32() float32 { return math.Float32frombits(r.Uint32()) }
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// String reads a string. The length must count a final NUL and fit in the message.
func (r *Reader) String() string {
	n := r.Uint32()
	if r.err != nil {
		return ""
	}
	if n == 0 {
		// Some writers send an empty string as length 0 (no NUL); accept it as "".
		return ""
	}
	if int64(n) > int64(r.Len()) {
		r.err = fmt.Errorf("%w: string of %d bytes, %d left", ErrShort, n, r.Len())
		return ""
	}
	b := r.take(1, int(n))
	if b[n-1] != 0 {
		r.err = fmt.Errorf("%w: %d-byte string does not end in NUL", ErrString, n)
		return ""
	}
	for _, c := range b[:n-1] {
		if c == 0 {
			r.err = fmt.Errorf("%w: NUL inside a %d-byte string", ErrString, n)
			return ""
		}
	}
	return string(b[:n-1])
}

// SeqLen reads a sequence's element count and checks that count elements of at least minSize bytes each can
// still be in the message, so a hostile count never makes the caller allocate.
func (r *Reader) SeqLen(minSize int) int {
	n := r.Uint32()
	if r.err != nil {
		return 0
	}
	if minSize < 1 {
		minSize = 1
	}
	if int64(n)*int64(minSize) > int64(r.Len()) {
		r.err = fmt.Errorf("%w: sequence of %d elements of %d+ bytes, %d bytes left", ErrShort, n, minSize, r.Len())
		return 0
	}
	return int(n)
}

// Octets reads n raw bytes (copied).
func (r *Reader) Octets(n int) []byte {
	b := r.take(1, n)
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}
