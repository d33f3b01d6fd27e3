package childproc

// The tx tap: the driver child writes the board port itself (fd 4, no extra hop on the stop path), so the
// supervisor, which records the port, learns of those writes from a copy the child sends it afterwards
// through a non-blocking pipe (fd 6). A full pipe drops the copy, never the write; the frame's sequence number
// shows the supervisor what it missed.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rosorin/rosorin/clock"
)

// A tap frame: unix ns of the write's return (8 bytes), sequence (4), length (2), the bytes written. One frame
// is at most PIPE_BUF, so a non-blocking write of it is all or nothing (pipe(7)).
const (
	tapHeader  = 14
	tapMaxData = 4096 - tapHeader
)

// TxTap wraps the driver child's board output: every byte the port took is copied, stamped, to the tap.
type TxTap struct {
	out     io.Writer
	fd      int
	mu      sync.Mutex
	seq     uint32
	buf     []byte
	dropped atomic.Uint64
	clk     clock.Clock // stamps the copies (clock.Real{})
}

var _ io.Writer = (*TxTap)(nil)

// OpenTxTap wraps out with the tx tap the supervisor passed, or returns out itself when it passed none (no
// --capture). It removes TxTapEnv from the environment.
func OpenTxTap(out io.Writer) (io.Writer, error) {
	fd, ok, err := childPipe(TxTapEnv, "tx tap")
	if err != nil {
		return nil, err
	}
	if !ok {
		return out, nil
	}
	return newTxTap(out, fd), nil
}

func newTxTap(out io.Writer, fd int) *TxTap {
	return &TxTap{out: out, fd: fd, clk: clock.Real{}, buf: make([]byte, 0, 4096)}
}

// Write writes p to the board, then copies what the board took to the tap without blocking.
func (t *TxTap) Write(p []byte) (int, error) {
	n, err := t.out.Write(p)
	if n > 0 {
		t.copy(t.clk.Now(), p[:n])
	}
	return n, err
}

// Dropped counts the copies a full tap pipe refused.
func (t *TxTap) Dropped() uint64 { return t.dropped.Load() }

func (t *TxTap) copy(at time.Time, p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(p) > 0 {
		d := p[:min(len(p), tapMaxData)]
		p = p[len(d):]
		b := t.buf[:tapHeader]
		binary.LittleEndian.PutUint64(b[0:], uint64(at.UnixNano()))
		binary.LittleEndian.PutUint32(b[8:], t.seq)
		binary.LittleEndian.PutUint16(b[12:], uint16(len(d)))
		b = append(b, d...)
		t.seq++
		if _, err := rawWrite(t.fd, b); err != nil { // EAGAIN: the supervisor is behind; EPIPE: it is gone
			t.dropped.Add(1)
		}
	}
}

// ReadTxTap is the supervisor's side: it reads a driver's tap frames until their end (the driver died) and
// hands each to put. It returns the frames lost to a full pipe (sequence gaps).
func ReadTxTap(r io.Reader, put func(at time.Time, data []byte)) (lost uint64, err error) {
	var hdr [tapHeader]byte
	var next uint32
	for first := true; ; first = false {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return lost, nil
			}
			return lost, err
		}
		n := int(binary.LittleEndian.Uint16(hdr[12:]))
		if n > tapMaxData {
			return lost, fmt.Errorf("tx tap frame of %d bytes: the driver is a different build?", n)
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(r, data); err != nil {
			return lost, fmt.Errorf("tx tap: cut frame: %w", err)
		}
		seq := binary.LittleEndian.Uint32(hdr[8:])
		if !first && seq != next {
			lost += uint64(seq - next)
		}
		next = seq + 1
		put(time.Unix(0, int64(binary.LittleEndian.Uint64(hdr[0:]))), data)
	}
}
