package replay

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rosorin/rosorin/capture"
	"github.com/rosorin/rosorin/capture/live"
	"github.com/rosorin/rosorin/capture/mcapfile"
	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/protocol/board"
)

// Options say what to replay and how.
type Options struct {
	File       string
	Dir        string        // where the ptys are published (created if missing)
	Rate       float64       // time scale: 2 plays twice as fast; 0 means 1
	Loop       bool          // start again at the end until the context ends
	Start, End time.Duration // window, as offsets from the first raw message; End 0: to the end
	Out        string        // record what the program writes back into this MCAP file ("" : not recorded)
	Compare    bool          // compare what the program writes with the recorded tx stream
	Hold       time.Duration // keep the ptys open this long after the last pass (the program's last writes)
	// WaitProgram starts the clock when a program first opens one of the ptys, not at once.
	WaitProgram bool
	Log         io.Writer
	// Ready is called once the ptys exist, with each device's path by name (ttyACM0, lidar).
	Ready func(devices map[string]string)
	// Clock paces the replay and stamps the program's writes; clock.Real{} when nil.
	Clock clock.Clock
}

// Result is what a replay did.
type Result struct {
	Recording *Recording
	Passes    int
	Messages  uint64        // rx messages played (their time came)
	Bytes     uint64        // rx bytes written to the ptys
	Dropped   uint64        // bytes a pty refused (nobody reading for 100 ms): counted, the clock goes on
	NoProgram uint64        // bytes not written because no program had that pty open (as cdc-acm)
	MaxLate   time.Duration // the latest a write went out after its scheduled time
	Written   map[string]uint64
	Compared  []Comparison
	Why       string
}

// Comparison is the program's writes against the recorded tx stream of one device kind, frame by frame.
type Comparison struct {
	Topic                 string
	Recorded, Written     int // frames
	RecordedB, WrittenB   uint64
	ByFunc                map[string][2]int // frames per function: recorded, written
	FirstDiff             int               // index of the first differing frame, -1 when the common prefix is equal
	RecordedAt, WrittenAt string            // the differing frames in hex ("" past an end)
}

// Same reports whether the program wrote exactly the recorded frames.
func (c Comparison) Same() bool { return c.FirstDiff < 0 && c.Recorded == c.Written }

// String is the comparison's report.
func (c Comparison) String() string {
	var fs []string
	names := make([]string, 0, len(c.ByFunc))
	for k := range c.ByFunc {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := c.ByFunc[k]
		fs = append(fs, fmt.Sprintf("%s %d/%d", k, v[0], v[1]))
	}
	s := fmt.Sprintf("%s: recorded %d frames (%d bytes), the program wrote %d (%d bytes); per function recorded/written: %s",
		c.Topic, c.Recorded, c.RecordedB, c.Written, c.WrittenB, strings.Join(fs, ", "))
	switch {
	case c.Same():
		s += "; identical"
	case c.Recorded == 0:
		s += "; the recording has no host-to-device frames to compare with (a passive recording sees rx only)"
	case c.FirstDiff >= 0:
		s += fmt.Sprintf("; first difference at frame %d: recorded %s, written %s", c.FirstDiff, orNone(c.RecordedAt), orNone(c.WrittenAt))
	default:
		s += "; one is a prefix of the other"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// written collects what the program writes to one pty.
type written struct {
	mu     sync.Mutex
	bytes  []byte
	n      uint64
	stream *Stream
}

// Run replays o.File until its end (or, with Loop, until ctx ends).
func Run(ctx context.Context, o Options) (*Result, error) {
	res := &Result{Written: map[string]uint64{}}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	if o.Rate == 0 {
		o.Rate = 1
	}
	if o.Rate < 0 || o.Rate > 1e6 || o.Rate != o.Rate {
		return res, fmt.Errorf("rate %v: pass a positive time scale (1 = recorded speed, 2 = twice as fast)", o.Rate)
	}
	if o.Start < 0 || o.End < 0 || o.End > 0 && o.End <= o.Start {
		return res, fmt.Errorf("window --start %s --end %s: want 0 <= start < end (end 0: to the end)", o.Start, o.End)
	}
	if o.Hold == 0 {
		o.Hold = time.Second
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	clk := o.Clock
	rec, err := scanFile(o.File)
	if err != nil {
		return res, err
	}
	res.Recording = rec
	if rec.Cut != nil {
		fmt.Fprintf(log, "capture replay: %s is cut at byte %d of %d (%v); playing what precedes the cut\n", o.File, rec.Good, rec.Size, rec.Cut)
	}
	rx := rec.Rx()
	if len(rx) == 0 {
		return res, fmt.Errorf("%s has only host-to-device streams; nothing to play out", o.File)
	}
	if o.Start > rec.Duration() {
		return res, fmt.Errorf("--start %s is past the recording's end (%s long)", o.Start, rec.Duration())
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return res, fmt.Errorf("replay directory: %w", err)
	}
	var out *mcapfile.Recorder
	outCh := map[capture.Kind]*mcapfile.Channel{}
	outDec := map[capture.Kind]*capture.Decoded{}
	if o.Out != "" {
		if _, err := os.Stat(o.Out); err == nil {
			return res, fmt.Errorf("%s exists; pick a new --out file", o.Out)
		}
		out, err = mcapfile.Create(o.Out, mcapfile.Options{Metadata: map[string]string{"recorder": "capture replay", "replayed": filepath.Base(o.File)}})
		if err != nil {
			return res, err
		}
		defer func() {
			if out != nil {
				out.Close()
			}
		}()
	}
	ptys := map[uint16]*live.PTY{} // by channel id: Each's streams are its own
	devices := map[string]string{}
	var wr []*written
	var readers sync.WaitGroup
	var outMu sync.Mutex
	defer func() {
		for _, p := range ptys {
			p.Close()
		}
		readers.Wait()
	}()
	for _, s := range rx {
		link := filepath.Join(o.Dir, s.Device)
		p, err := live.OpenPTY(link, s.Baud)
		if err != nil {
			return res, err
		}
		ptys[s.ID] = p
		devices[s.Device] = link
		w := &written{stream: s}
		wr = append(wr, w)
		if out != nil {
			if _, ok := outCh[s.Kind]; !ok {
				c, err := out.RawChannel(capture.RawTopic(s.Kind, capture.ToDevice), string(s.Kind))
				if err != nil {
					return res, err
				}
				d, err := capture.NewDecoded(out, s.Kind, capture.ToDevice)
				if err != nil {
					return res, err
				}
				outCh[s.Kind], outDec[s.Kind] = c, d
			}
		}
		readers.Add(1)
		go func(p *live.PTY, w *written) {
			defer readers.Done()
			buf := make([]byte, 16<<10)
			for {
				n, err := p.Master.Read(buf)
				if n > 0 {
					t := clk.Now()
					w.mu.Lock()
					w.n += uint64(n)
					if o.Compare {
						w.bytes = append(w.bytes, buf[:n]...)
					}
					w.mu.Unlock()
					if out != nil {
						outMu.Lock()
						if out.Write(outCh[w.stream.Kind], t, buf[:n]) == nil {
							_ = outDec[w.stream.Kind].Feed(t, buf[:n])
						}
						outMu.Unlock()
					}
				}
				if err != nil {
					return
				}
			}
		}(p, w)
		fmt.Fprintf(log, "capture replay: %s -> %s (%s)\n", s.Topic, link, p.SlaveName)
	}
	if o.Ready != nil {
		o.Ready(devices)
	}
	if o.WaitProgram {
		fmt.Fprintf(log, "capture replay: waiting for a program to open %v\n", devices)
		for open := false; !open; {
			for _, p := range ptys {
				open = open || p.Clients() > 0
			}
			if open {
				break
			}
			if clk.Sleep(ctx, 5*time.Millisecond) != nil {
				res.Why = "signal"
				return res, nil
			}
		}
	}
	// recorded tx bytes per kind, from the first pass's window, for the comparison
	recordedTx := map[capture.Kind][]byte{}
	txTopic := map[capture.Kind]string{}
	stopped := errors.New("window end")
	res.Why = "end of the recording"
	for pass := 0; ; pass++ {
		f, err := capture.OpenFile(o.File)
		if err != nil {
			return res, err
		}
		wall := clk.Now()
		err = Each(f, func(m Message) error {
			rel := time.Duration(m.Time - rec.First)
			if m.Time < rec.First || rel < o.Start {
				return nil
			}
			if o.End > 0 && rel > o.End {
				return stopped
			}
			if m.Stream.Dir == capture.ToDevice {
				if pass == 0 && o.Compare {
					recordedTx[m.Stream.Kind] = append(recordedTx[m.Stream.Kind], m.Data...)
					txTopic[m.Stream.Kind] = m.Stream.Topic
				}
				return nil
			}
			p, ok := ptys[m.Stream.ID]
			if !ok {
				return nil
			}
			due := wall.Add(time.Duration(float64(rel-o.Start) / o.Rate))
			if d := due.Sub(clk.Now()); d > 0 {
				if err := clk.Sleep(ctx, d); err != nil {
					return err
				}
			} else if ctx.Err() != nil {
				return ctx.Err()
			}
			if late := clk.Now().Sub(due); late > res.MaxLate {
				res.MaxLate = late
			}
			res.Messages++
			if p.Clients() == 0 {
				res.NoProgram += uint64(len(m.Data))
				return nil
			}
			// The pty's deadline is on the wall clock (clock.Real), whatever o.Clock is.
			_ = p.Master.SetWriteDeadline(clock.Real{}.Now().Add(100 * time.Millisecond))
			n, _ := p.Master.Write(m.Data)
			res.Dropped += uint64(len(m.Data) - n)
			res.Bytes += uint64(n)
			return nil
		})
		f.Close()
		res.Passes = pass + 1
		if err != nil && !errors.Is(err, stopped) {
			if ctx.Err() != nil {
				res.Why = "signal"
				break
			}
			return res, err
		}
		if !o.Loop || ctx.Err() != nil {
			break
		}
	}
	if res.Why != "signal" {
		_ = clk.Sleep(ctx, o.Hold) // ends early when ctx does
	}
	for _, p := range ptys {
		p.Close()
	}
	readers.Wait()
	for _, w := range wr {
		res.Written[w.stream.Device] += w.n
	}
	if o.Compare {
		for _, w := range wr {
			if w.stream.Kind != capture.Board {
				continue
			}
			topic := txTopic[w.stream.Kind]
			if topic == "" {
				topic = capture.RawTopic(w.stream.Kind, capture.ToDevice) + " (not in the recording)"
			}
			res.Compared = append(res.Compared, CompareBoard(topic, recordedTx[w.stream.Kind], w.bytes))
		}
	}
	if out != nil {
		err := out.Close()
		out = nil
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

func scanFile(name string) (*Recording, error) {
	f, err := capture.OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	rec, err := Scan(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rec, nil
}

// boardFrames splits a board byte stream into its valid frames (their bytes).
func boardFrames(b []byte) [][]byte {
	var p board.Parser
	var out [][]byte
	p.Feed(b, func(f board.Frame) {
		fb, err := f.Bytes()
		if err == nil {
			out = append(out, fb)
		}
	})
	return out
}

// CompareBoard compares two host-to-board byte streams frame by frame.
func CompareBoard(topic string, recorded, wrote []byte) Comparison {
	a, b := boardFrames(recorded), boardFrames(wrote)
	c := Comparison{Topic: topic, Recorded: len(a), Written: len(b), RecordedB: uint64(len(recorded)),
		WrittenB: uint64(len(wrote)), ByFunc: map[string][2]int{}, FirstDiff: -1}
	for _, f := range a {
		v := c.ByFunc[board.FuncName(f[2])]
		v[0]++
		c.ByFunc[board.FuncName(f[2])] = v
	}
	for _, f := range b {
		v := c.ByFunc[board.FuncName(f[2])]
		v[1]++
		c.ByFunc[board.FuncName(f[2])] = v
	}
	for i := 0; i < max(len(a), len(b)); i++ {
		if i < len(a) && i < len(b) && string(a[i]) == string(b[i]) {
			continue
		}
		if i >= len(a) || i >= len(b) {
			break // a prefix: Same() tells by the counts
		}
		c.FirstDiff = i
		c.RecordedAt, c.WrittenAt = hex.EncodeToString(a[i]), hex.EncodeToString(b[i])
		break
	}
	return c
}
