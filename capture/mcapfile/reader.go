package mcapfile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"

	"github.com/foxglove/mcap/go/mcap"
)

// Limits on hostile input: no record or decompressed chunk above these is read.
const (
	MaxRecordSize = 64 << 20
	MaxChunkSize  = 256 << 20
)

// Ends of a file, as Info.Ended reports them.
const (
	EndClean     = "clean"     // footer present, written by a clean close
	EndRecovered = "recovered" // footer present, written by Rewrite from a cut input
	EndClosed    = "closed"    // data end record but no summary: a .part file whose Close did not finish
	EndCut       = "cut"       // stops inside or after a record without a data end: killed or power loss
)

// IsMCAP reports whether b starts with the MCAP magic.
func IsMCAP(b []byte) bool { return bytes.HasPrefix(b, mcap.Magic) }

// Visitor receives the records of a linear read. Any field may be nil.
type Visitor struct {
	Header   func(*mcap.Header) error
	Schema   func(*mcap.Schema) error
	Channel  func(*mcap.Channel) error
	Message  func(*mcap.Message) error
	Metadata func(*mcap.Metadata) error
}

// Walk is the outcome of a linear read.
type Walk struct {
	Good     int64 // bytes up to the end of the last complete record (or chunk)
	Footer   bool
	DataEnd  bool
	Cut      error // why reading stopped before a footer; nil for a complete file
	Salvaged int   // messages handed out from a cut uncompressed chunk (included in what the visitor saw)
}

type countingReader struct {
	r       io.Reader
	n       int64
	pending []byte // bytes read since the last complete record: the record being read
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	if len(c.pending)+n <= MaxRecordSize+9 {
		c.pending = append(c.pending, b[:n]...)
	}
	return n, err
}

// Read reads an MCAP stream linearly (chunked or not, complete or cut) and hands each record to v. A cut
// or corrupted tail is not an error: it ends the read and is described in Walk.Cut; the complete records
// of a cut uncompressed chunk are still handed out (Walk.Salvaged counts the messages). The error is a
// visitor's, or a file that is not MCAP at all.
func Read(r io.Reader, v Visitor) (Walk, error) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 256<<10)}
	lex, err := mcap.NewLexer(cr, &mcap.LexerOptions{MaxRecordSize: MaxRecordSize,
		MaxDecompressedChunkSize: MaxChunkSize, ValidateChunkCRCs: true})
	if err != nil {
		return Walk{}, fmt.Errorf("not an MCAP file: %w", err)
	}
	defer lex.Close()
	var w Walk
	w.Good = int64(len(mcap.Magic))
	cr.pending = cr.pending[:0]
	buf := make([]byte, 1024)
	var msg mcap.Message
	// handle visits one record; a record that does not parse ends the read as a cut.
	handle := func(tok mcap.TokenType, rec []byte) (bool, error) {
		var perr, verr error
		switch tok {
		case mcap.TokenHeader:
			var h *mcap.Header
			if h, perr = mcap.ParseHeader(rec); perr == nil && v.Header != nil {
				verr = v.Header(h)
			}
		case mcap.TokenSchema:
			var sc *mcap.Schema
			if sc, perr = mcap.ParseSchema(rec); perr == nil && v.Schema != nil {
				verr = v.Schema(sc)
			}
		case mcap.TokenChannel:
			var c *mcap.Channel
			if c, perr = mcap.ParseChannel(rec); perr == nil && v.Channel != nil {
				verr = v.Channel(c)
			}
		case mcap.TokenMessage:
			if perr = msg.PopulateFrom(rec, false); perr == nil && v.Message != nil {
				verr = v.Message(&msg)
			}
		case mcap.TokenMetadata:
			var m *mcap.Metadata
			if m, perr = mcap.ParseMetadata(rec); perr == nil && v.Metadata != nil {
				verr = v.Metadata(m)
			}
		case mcap.TokenDataEnd:
			w.DataEnd = true
		case mcap.TokenFooter:
			w.Footer = true
		}
		if perr != nil {
			w.Cut = perr
			return false, nil
		}
		return verr == nil, verr
	}
	for {
		tok, rec, err := next(lex, buf)
		if err != nil {
			if !w.Footer && !(w.DataEnd && errors.Is(err, io.EOF)) {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				w.Cut = err
				n, serr := salvageChunk(cr.pending, func(op mcap.OpCode, rec []byte) (bool, error) {
					return handle(opToken[op], rec)
				})
				w.Salvaged = n
				return w, serr
			}
			return w, nil
		}
		if cap(rec) > cap(buf) {
			buf = rec[:cap(rec)]
		}
		ok, verr := handle(tok, rec)
		if verr != nil || !ok {
			return w, verr
		}
		w.Good = cr.n
		cr.pending = cr.pending[:0]
	}
}

var opToken = map[mcap.OpCode]mcap.TokenType{mcap.OpHeader: mcap.TokenHeader, mcap.OpSchema: mcap.TokenSchema,
	mcap.OpChannel: mcap.TokenChannel, mcap.OpMessage: mcap.TokenMessage, mcap.OpMetadata: mcap.TokenMetadata}

// salvageChunk hands out the complete records of a cut chunk (b: the bytes read of the chunk record, from
// its opcode) when the chunk is uncompressed, and returns how many of them were messages. Compressed or
// foreign bytes give nothing.
func salvageChunk(b []byte, visit func(mcap.OpCode, []byte) (bool, error)) (int, error) {
	const fixed = 9 + 8 + 8 + 8 + 4 + 4
	if len(b) < fixed || mcap.OpCode(b[0]) != mcap.OpChunk {
		return 0, nil
	}
	clen := uint64(binary.LittleEndian.Uint32(b[fixed-4:]))
	if clen != 0 || uint64(len(b)) < fixed+8 {
		return 0, nil // compressed: a cut stream cannot be decoded record by record here
	}
	recs := b[fixed+8:]
	if n := binary.LittleEndian.Uint64(b[fixed:]); n < uint64(len(recs)) {
		recs = recs[:n]
	}
	msgs := 0
	for len(recs) >= 9 {
		op := mcap.OpCode(recs[0])
		n := binary.LittleEndian.Uint64(recs[1:9])
		if n > uint64(len(recs)-9) {
			break
		}
		body := recs[9 : 9+n]
		recs = recs[9+n:]
		if _, ok := opToken[op]; !ok || op == mcap.OpHeader {
			continue
		}
		ok, err := visit(op, body)
		if err != nil {
			return msgs, err
		}
		if !ok {
			break
		}
		if op == mcap.OpMessage {
			msgs++
		}
	}
	return msgs, nil
}

// next is lex.Next with its panics turned into errors: v1.7.0's chunk loader slices by lengths read from
// the file without checking them (found by FuzzReaders), and a hostile file must not crash a tool.
func next(lex *mcap.Lexer, buf []byte) (tok mcap.TokenType, rec []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			tok, rec, err = mcap.TokenError, nil, fmt.Errorf("corrupt record (the mcap lexer panicked: %v)", p)
		}
	}()
	return lex.Next(buf)
}

// RewriteReport says what Rewrite kept and dropped.
type RewriteReport struct {
	InputBytes   int64
	KeptBytes    int64 // input bytes up to the end of the last complete record
	DroppedBytes int64 // input bytes after it (a cut record, a corrupt chunk and everything behind it)
	Messages     uint64
	Channels     int
	LastLogTime  uint64 // ns, of the last message kept
	Salvaged     int    // messages kept from a cut uncompressed chunk (included in Messages)
	InputEnded   string
	Cut          error
}

// String is the one-line account `capture recover` prints.
func (r RewriteReport) String() string {
	s := fmt.Sprintf("input ended %s; kept %d of %d bytes (%d dropped), %d messages on %d channels",
		r.InputEnded, r.KeptBytes, r.InputBytes, r.DroppedBytes, r.Messages, r.Channels)
	if r.Salvaged > 0 {
		s += fmt.Sprintf(" (%d of them from the cut chunk)", r.Salvaged)
	}
	if r.Cut != nil {
		s += "; stopped at: " + r.Cut.Error()
	}
	return s
}

// RewriteFile rewrites the MCAP file in (complete or cut) into out: chunked, indexed, with statistics. A
// cut input gets a rosorin.recovery metadata record with the figures of the report.
func RewriteFile(in, out string) (RewriteReport, error) {
	f, err := os.Open(in)
	if err != nil {
		return RewriteReport{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return RewriteReport{}, err
	}
	tmp := out + ".tmp"
	o, err := os.Create(tmp)
	if err != nil {
		return RewriteReport{}, err
	}
	bw := bufio.NewWriterSize(o, 1<<20)
	rep, err := RewriteNamed(f, st.Size(), bw, filepath.Base(out))
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = o.Sync()
	}
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, out)
	}
	if err == nil {
		err = syncDir(filepath.Dir(out)) // the rename is durable before the caller removes its input
	}
	if err != nil {
		os.Remove(tmp)
		return rep, err
	}
	return rep, nil
}

// syncDir fsyncs a directory so a rename in it survives a power loss. Systems that cannot open a directory
// for syncing (Windows) skip it.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && runtime.GOOS != "windows" {
		return err
	}
	return nil
}

// Rewrite copies the records of the MCAP stream r (size bytes) into a new chunked, indexed file on w.
func Rewrite(r io.Reader, size int64, w io.Writer) (RewriteReport, error) {
	return RewriteNamed(r, size, w, "")
}

// RewriteNamed is Rewrite for a file that will be called name (its base name): the rosbag2 metadata
// record, written last (a fresh one: an input's own is left out), lists it as the bag's one file.
func RewriteNamed(r io.Reader, size int64, w io.Writer, name string) (RewriteReport, error) {
	rep := RewriteReport{InputBytes: size}
	mw, err := mcap.NewWriter(w, &mcap.WriterOptions{Chunked: true, ChunkSize: finalChunkSize,
		Compression: mcap.CompressionNone, IncludeCRC: true, OverrideLibrary: true})
	if err != nil {
		return rep, err
	}
	schemas := map[uint16]*mcap.Schema{}
	written := map[uint16]bool{}
	channels := map[uint16]bool{}
	var metas []*mcap.Metadata
	var bag rosbag2Counter
	header := false
	wrote := func() error {
		if !header {
			header = true
			return mw.WriteHeader(&mcap.Header{Profile: Profile, Library: library})
		}
		return nil
	}
	walk, err := Read(r, Visitor{
		Header: func(h *mcap.Header) error {
			if header {
				return nil
			}
			header = true
			return mw.WriteHeader(&mcap.Header{Profile: h.Profile, Library: h.Library})
		},
		Schema: func(s *mcap.Schema) error {
			if err := wrote(); err != nil {
				return err
			}
			cp := *s
			cp.Data = append([]byte(nil), s.Data...)
			schemas[s.ID] = &cp
			return nil
		},
		Channel: func(c *mcap.Channel) error {
			if err := wrote(); err != nil {
				return err
			}
			if channels[c.ID] {
				return nil
			}
			s, ok := schemas[c.SchemaID]
			if !ok && c.SchemaID != 0 {
				return nil // its schema was lost or never written: the channel and its messages cannot be kept
			}
			if ok && !written[s.ID] {
				if err := mw.WriteSchema(s); err != nil {
					return err
				}
				written[s.ID] = true
			}
			channels[c.ID] = true
			bag.channel(c, s)
			rep.Channels++
			return mw.WriteChannel(c)
		},
		Message: func(m *mcap.Message) error {
			if !channels[m.ChannelID] {
				return nil // a message whose channel was lost cannot be kept
			}
			rep.Messages++
			rep.LastLogTime = m.LogTime
			bag.message(m)
			return mw.WriteMessage(m)
		},
		Metadata: func(m *mcap.Metadata) error {
			if err := wrote(); err != nil {
				return err
			}
			if m.Name == RecoveryMeta {
				metas = append(metas, m)
			}
			if m.Name == Rosbag2Meta {
				return nil // rewritten at the end with this file's own counts
			}
			return mw.WriteMetadata(m)
		},
	})
	if err != nil {
		return rep, err
	}
	if err := wrote(); err != nil {
		return rep, err
	}
	rep.KeptBytes = walk.Good
	rep.DroppedBytes = size - walk.Good
	rep.Cut = walk.Cut
	rep.Salvaged = walk.Salvaged
	rep.InputEnded = ended(walk, len(metas) > 0)
	if rep.InputEnded == EndCut || rep.InputEnded == EndClosed && rep.DroppedBytes > 0 {
		err := mw.WriteMetadata(&mcap.Metadata{Name: RecoveryMeta, Metadata: map[string]string{
			"input_bytes":   strconv.FormatInt(size, 10),
			"kept_bytes":    strconv.FormatInt(walk.Good, 10),
			"dropped_bytes": strconv.FormatInt(size-walk.Good, 10),
			"messages":      strconv.FormatUint(rep.Messages, 10),
			"salvaged":      strconv.Itoa(rep.Salvaged),
			"last_log_time": strconv.FormatUint(rep.LastLogTime, 10),
			"reason":        fmt.Sprint(walk.Cut),
		}})
		if err != nil {
			return rep, err
		}
	}
	if err := mw.WriteMetadata(bag.record(name)); err != nil {
		return rep, err
	}
	return rep, mw.Close()
}

func ended(w Walk, recovered bool) string {
	switch {
	case w.Footer && recovered:
		return EndRecovered
	case w.Footer:
		return EndClean
	case w.DataEnd:
		return EndClosed
	}
	return EndCut
}

// sortedIDs returns the keys of m in order.
func sortedIDs[V any](m map[uint16]V) []uint16 {
	ids := make([]uint16, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
