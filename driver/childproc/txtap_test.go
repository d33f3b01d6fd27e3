package childproc

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tapPair makes a tap whose pipe the test reads; the board side is a buffer.
func tapPair(t *testing.T) (*TxTap, *bytes.Buffer, int) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(p[0]); unix.Close(p[1]) })
	board := &bytes.Buffer{}
	return newTxTap(board, p[1]), board, p[0]
}

type fdReader int

func (f fdReader) Read(b []byte) (int, error) {
	n, err := unix.Read(int(f), b)
	if err == unix.EAGAIN || n == 0 {
		return 0, errors.New("EOF")
	}
	return n, err
}

// TestTxTapCopiesEveryWrite: each write reaches the board unchanged and its copy comes out of the tap with
// its time; a write larger than a pipe frame is split, and nothing is lost.
func TestTxTapCopiesEveryWrite(t *testing.T) {
	tap, board, r := tapPair(t)
	big := bytes.Repeat([]byte{7}, 5000)
	writes := [][]byte{{1, 2, 3}, big, {9}}
	t0 := time.Now()
	for _, w := range writes {
		if n, err := tap.Write(w); n != len(w) || err != nil {
			t.Fatal(n, err)
		}
	}
	var got []byte
	var frames int
	lost, _ := ReadTxTap(fdReader(r), func(at time.Time, d []byte) {
		if at.Before(t0) || at.After(time.Now()) {
			t.Errorf("tap time %v outside the writes", at)
		}
		frames++
		got = append(got, d...)
	})
	want := bytes.Join(writes, nil)
	if !bytes.Equal(got, want) || !bytes.Equal(board.Bytes(), want) || lost != 0 || frames != 4 {
		t.Fatalf("tap %d bytes in %d frames (lost %d), board %d bytes; want %d in 4 frames", len(got), frames, lost, board.Len(), len(want))
	}
}

// TestTxTapFullPipe: a tap nobody reads drops copies (counted on both sides by the sequence numbers), never
// blocks and never fails the board write.
func TestTxTapFullPipe(t *testing.T) {
	tap, board, r := tapPair(t)
	frame := bytes.Repeat([]byte{0xaa}, 27)
	const n = 5000 // 5000 x 41 bytes is over three times the 64 KiB pipe
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := tap.Write(frame); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("%d writes took %v with the tap full", n, took)
	}
	if board.Len() != n*27 {
		t.Fatalf("board got %d bytes, want %d", board.Len(), n*27)
	}
	if tap.Dropped() == 0 {
		t.Fatal("no copy dropped with a full pipe")
	}
	var kept uint64
	lost, _ := ReadTxTap(fdReader(r), func(time.Time, []byte) { kept++ })
	if kept+tap.Dropped() != n || lost != 0 {
		t.Fatalf("kept %d + dropped %d != %d written (gaps inside what was kept: %d)", kept, tap.Dropped(), n, lost)
	}
}

// TestReadTxTapGapsAndBadFrames: sequence gaps are counted; a frame longer than the limit or cut short is an
// error, not a panic.
func TestReadTxTapGapsAndBadFrames(t *testing.T) {
	mk := func(seq uint32, data []byte) []byte {
		b := make([]byte, tapHeader, tapHeader+len(data))
		b[8], b[9], b[10], b[11] = byte(seq), byte(seq>>8), byte(seq>>16), byte(seq>>24)
		b[12], b[13] = byte(len(data)), byte(len(data)>>8)
		return append(b, data...)
	}
	in := append(append(mk(0, []byte{1}), mk(1, []byte{2})...), mk(5, []byte{3})...)
	lost, err := ReadTxTap(bytes.NewReader(in), func(time.Time, []byte) {})
	if err != nil || lost != 3 {
		t.Fatalf("lost %d, err %v; want 3, nil", lost, err)
	}
	bad := mk(0, nil)
	bad[12], bad[13] = 0xff, 0xff
	if _, err := ReadTxTap(bytes.NewReader(bad), func(time.Time, []byte) {}); err == nil || !strings.Contains(err.Error(), "different build") {
		t.Fatalf("oversize frame: %v", err)
	}
	cut := mk(0, []byte{1, 2, 3})[:tapHeader+1]
	if _, err := ReadTxTap(bytes.NewReader(cut), func(time.Time, []byte) {}); err == nil || !strings.Contains(err.Error(), "cut frame") {
		t.Fatalf("cut frame: %v", err)
	}
}

// FuzzReadTxTap: any byte stream ends ReadTxTap with nil or an error, never a panic or a hang.
func FuzzReadTxTap(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, tapHeader+3))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadTxTap(bytes.NewReader(b), func(time.Time, []byte) {})
	})
}

// TestOpenTxTapEnv: without the variable the board writer is returned as is; a bad value is a setup error.
func TestOpenTxTapEnv(t *testing.T) {
	var w bytes.Buffer
	t.Setenv(TxTapEnv, "")
	if _, err := OpenTxTap(&w); err == nil {
		t.Fatal("empty tap variable accepted")
	}
	t.Setenv(TxTapEnv, "0") // stdin: not a pipe we were given
	if _, err := OpenTxTap(&w); err == nil {
		t.Fatal("fd 0 accepted as a tap")
	}
	unixUnsetenv(t)
	out, err := OpenTxTap(&w)
	if err != nil || out != &w {
		t.Fatalf("no tap: %v, %T", err, out)
	}
}

func unixUnsetenv(t *testing.T) {
	t.Helper()
	t.Setenv(TxTapEnv, "x")
	_ = unix.Unsetenv(TxTapEnv)
}
