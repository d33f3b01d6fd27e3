package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rosorin/rosorin/protocol/board"
)

// corruptReport is what a receiver made of nFrames copies of one frame sent through corruption, followed
// by flush clean zero bytes.
type corruptReport struct {
	Intact, Passed int    // frames accepted unchanged / accepted though corrupted (passed CRC-8 by chance)
	Lost           int    // frames sent but not accepted unchanged
	Explained      uint64 // upper bound on Lost from the corrupted bytes and the passed frames
}

// checkCorruptAccounting checks what must hold for ANY corruption seed, given the frames the receiver's
// parser accepted (rx), its counters over the run (d) and the number of bytes corrupted (k, from the
// sender's truth):
//   - every byte sent is either inside an accepted frame or counted as skipped by the parser (the flush
//     leaves no candidate pending);
//   - the parser's frame count equals the accepted frames;
//   - an accepted frame is either the one sent or a corrupted one that passed the CRC (reported, never
//     assumed away: besides the 1-in-256 chance, a repeated frame makes some flips pass structurally);
//   - a frame is lost only if one of its bytes was corrupted or an accepted corrupted frame covers part of
//     it (one of L bytes covers at most L/len(frame)+2 frames);
//   - if any byte was corrupted, not every frame arrived unchanged.
func checkCorruptAccounting(frame []byte, nFrames, flush int, k uint64, rx []Received, d board.Stats) (corruptReport, error) {
	var r corruptReport
	var problems []string
	payload := frame[4 : len(frame)-1]
	accepted := uint64(0)
	r.Explained = k
	for _, f := range rx {
		n := uint64(board.Overhead + len(f.Payload))
		accepted += n
		if f.Func == frame[2] && bytes.Equal(f.Payload, payload) {
			r.Intact++
			continue
		}
		r.Passed++
		r.Explained += n/uint64(len(frame)) + 2
	}
	r.Lost = nFrames - r.Intact
	if sent := uint64(nFrames*len(frame) + flush); accepted+d.SkippedBytes != sent {
		problems = append(problems, fmt.Sprintf("bytes unaccounted: %d sent, %d in accepted frames + %d skipped by the parser",
			sent, accepted, d.SkippedBytes))
	}
	if d.Frames != uint64(len(rx)) {
		problems = append(problems, fmt.Sprintf("parser counted %d frames, %d accepted", d.Frames, len(rx)))
	}
	if uint64(r.Lost) > r.Explained {
		problems = append(problems, fmt.Sprintf("%d frames lost, only %d explained by %d corrupted bytes and %d frames that passed CRC",
			r.Lost, r.Explained, k, r.Passed))
	}
	if k > 0 && r.Intact == nFrames {
		problems = append(problems, fmt.Sprintf("%d bytes corrupted yet all %d frames arrived unchanged", k, nFrames))
	}
	if r.Intact > nFrames {
		problems = append(problems, fmt.Sprintf("%d intact frames accepted, only %d sent", r.Intact, nFrames))
	}
	if len(problems) > 0 {
		return r, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return r, nil
}

// TestCorruptAccountingAnySeed runs the accounting of TestFaultCorrupt (to-board) through the sim's own
// corrupt function and the protocol parser for many seeds, without a pty: it holds for every seed,
// including the seeds where a corrupted frame passes CRC-8. Negative control: a receiver that drops a
// frame silently (bytes neither accepted nor counted) is caught.
func TestCorruptAccountingAnySeed(t *testing.T) {
	frame := board.EncodeMotorStopMask(0x0f)
	const nFrames, flush = 100, 300
	run := func(seed uint64, rate float64) (uint64, []Received, board.Stats) {
		rng := rand.New(rand.NewPCG(seed, 0x70b0a4d0))
		stream := bytes.Repeat(frame, nFrames)
		k := uint64(corrupt(rng, stream, rate))
		stream = append(stream, make([]byte, flush)...)
		var p board.Parser
		var rx []Received
		for len(stream) > 0 { // chunked like pty reads; the parser must not care
			n := min(len(stream), 1+rng.IntN(64))
			p.Feed(stream[:n], func(f board.Frame) {
				rx = append(rx, Received{Func: f.Func, Payload: append([]byte(nil), f.Payload...)})
			})
			stream = stream[n:]
		}
		if p.Pending() != 0 {
			t.Fatalf("seed %d: parser still holds %d bytes after the flush", seed, p.Pending())
		}
		return k, rx, p.Stats()
	}
	passedSeeds, passedFrames := 0, 0
	for seed := uint64(0); seed < 3000; seed++ {
		k, rx, st := run(seed, 0.05)
		r, err := checkCorruptAccounting(frame, nFrames, flush, k, rx, st)
		if err != nil {
			t.Fatalf("seed %d: %v (%+v, parser %+v)", seed, err, r, st)
		}
		if r.Passed > 0 {
			passedSeeds++
			passedFrames += r.Passed
		}
	}
	t.Logf("3000 seeds at 5 %%: %d seeds had corrupted frames pass CRC-8 (%d frames), all accounted for", passedSeeds, passedFrames)
	if passedSeeds == 0 {
		t.Error("no seed made a corrupted frame pass CRC-8: the case the accounting exists for was not exercised")
	}
	// No corruption: all frames intact, only the flush skipped.
	if k, rx, st := run(1, 0); k != 0 || len(rx) != nFrames || st.SkippedBytes != flush {
		t.Errorf("clean run: %d corrupted, %d frames, parser %+v", k, len(rx), st)
	} else if _, err := checkCorruptAccounting(frame, nFrames, flush, k, rx, st); err != nil {
		t.Errorf("clean run: %v", err)
	}
	// Negative controls: a frame dropped without being counted, and corruption the receiver never saw.
	k, rx, st := run(7, 0.05)
	if _, err := checkCorruptAccounting(frame, nFrames, flush, k, rx[1:], board.Stats{Frames: st.Frames - 1, SkippedBytes: st.SkippedBytes}); err == nil {
		t.Error("a frame dropped without a count passed the accounting")
	}
	if _, err := checkCorruptAccounting(frame, nFrames, flush, 5, nil, board.Stats{}); err == nil {
		t.Error("an empty receiver passed the accounting")
	}
	if _, err := checkCorruptAccounting(frame, nFrames, 0, 3, rxN(frame, nFrames), board.Stats{Frames: nFrames}); err == nil {
		t.Error("3 corrupted bytes with every frame intact passed the accounting")
	}
}

// rxN is n clean receptions of frame.
func rxN(frame []byte, n int) []Received {
	out := make([]Received, n)
	for i := range out {
		out[i] = Received{Func: frame[2], Payload: frame[4 : len(frame)-1]}
	}
	return out
}
