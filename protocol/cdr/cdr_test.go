package cdr

import (
	"bytes"
	"errors"
	"testing"
)

func TestWriterAlignsFromAfterTheHeader(t *testing.T) {
	w := NewWriter(nil)
	w.Uint8(7)       // body offset 0
	w.Uint16(0x0102) // pad 1, offset 2
	w.Uint8(9)       // offset 4
	w.Float64(1.0)   // pad 3, offset 8
	w.String("ab")   // offset 16: length 3, "ab\0"
	w.Uint32(5)      // offset 23 -> pad 1, offset 24
	want := []byte{
		0x00, 0x01, 0x00, 0x00, // header: plain CDR, little endian
		0x07, 0x00, 0x02, 0x01, // uint8, pad, uint16
		0x09, 0x00, 0x00, 0x00, // uint8, pad to 8
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f, // 1.0
		0x03, 0x00, 0x00, 0x00, 'a', 'b', 0x00, // string
		0x00,                   // pad to 4
		0x05, 0x00, 0x00, 0x00, // uint32
	}
	if got := w.Bytes(); !bytes.Equal(got, want) {
		t.Fatalf("got  % x\nwant % x", got, want)
	}
	r, err := NewReader(want)
	if err != nil {
		t.Fatal(err)
	}
	if r.Uint8() != 7 || r.Uint16() != 0x0102 || r.Uint8() != 9 || r.Float64() != 1.0 || r.String() != "ab" || r.Uint32() != 5 || r.Err() != nil || r.Len() != 0 {
		t.Fatalf("read back wrong: err %v, %d left", r.Err(), r.Len())
	}
}

func TestBigEndianRead(t *testing.T) {
	r, err := NewReader([]byte{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Uint32(); v != 0x0102 {
		t.Fatalf("uint32 %#x", v)
	}
	if v := r.Float64(); v != 1 {
		t.Fatalf("float64 %v", v)
	}
}

func TestReaderRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		read func(r *Reader)
		want error
	}{
		{"no header", []byte{0x00, 0x01}, nil, ErrShort},
		{"XCDR2", []byte{0x00, 0x07, 0x00, 0x00, 1}, nil, ErrEncapsulation},
		{"PL_CDR", []byte{0x00, 0x03, 0x00, 0x00, 1}, nil, ErrEncapsulation},
		{"garbage header", []byte{0xde, 0xad, 0x00, 0x00}, nil, ErrEncapsulation},
		{"short uint32", []byte{0x00, 0x01, 0x00, 0x00, 1, 2}, func(r *Reader) { r.Uint32() }, ErrShort},
		{"huge string", []byte{0x00, 0x01, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 'a'}, func(r *Reader) { _ = r.String() }, ErrShort},
		{"string without NUL", []byte{0x00, 0x01, 0x00, 0x00, 2, 0, 0, 0, 'a', 'b'}, func(r *Reader) { _ = r.String() }, ErrString},
		{"NUL in string", []byte{0x00, 0x01, 0x00, 0x00, 3, 0, 0, 0, 'a', 0, 0}, func(r *Reader) { _ = r.String() }, ErrString},
		{"huge sequence", []byte{0x00, 0x01, 0x00, 0x00, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0}, func(r *Reader) { r.SeqLen(4) }, ErrShort},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(tc.in)
			if err == nil && tc.read != nil {
				tc.read(r)
				err = r.Err()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestFirstErrorSticks(t *testing.T) {
	r, _ := NewReader([]byte{0x00, 0x01, 0x00, 0x00, 1})
	r.Uint32()
	first := r.Err()
	if first == nil {
		t.Fatal("no error reading 4 bytes from 1")
	}
	if r.Uint8() != 0 || r.Float64() != 0 || r.String() != "" || r.Err() != first {
		t.Fatalf("reads after an error: err %v (first %v)", r.Err(), first)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte{0x00, 0x01, 0x00, 0x00, 3, 0, 0, 0, 'a', 'b', 0, 0, 2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(b)
		if err != nil {
			return
		}
		// A mixed read sequence must never panic or read past the end.
		_ = r.String()
		n := r.SeqLen(8)
		for i := 0; i < n; i++ {
			r.Float64()
		}
		r.Bool()
		r.Uint16()
		if r.Len() < 0 {
			t.Fatalf("negative length left")
		}
	})
}
