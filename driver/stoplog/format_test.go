package stoplog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func goodLine(t testing.TB, seq uint64) []byte {
	rec := sample(int(seq))
	rec.Seq = seq
	b, err := AppendLine(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// lineCases drive TestParseLine and seed FuzzParse.
var lineCases = []struct {
	name string
	line string // without its newline
	bad  string // a word of the reason, "" for good
}{
	{"empty", "", "no checksum field"},
	{"no space", "0123456789{}", "no checksum field"},
	{"bad hex", "0123456z {\"seq\":1}", "bad checksum field"},
	{"upper hex", "E3069283 {\"seq\":1}", "bad checksum field"},
	{"mismatch", "00000000 {\"seq\":1}", "checksum mismatch"},
	{"not a record", crcOf("[1,2]") + " [1,2]", "not a stop record"},
	{"seq 0", crcOf(`{"seq":0}`) + ` {"seq":0}`, "without a seq"},
	{"minimal", crcOf(`{"seq":7}`) + ` {"seq":7}`, ""},
}

func crcOf(s string) string {
	return fmt.Sprintf("%08x", crc32c([]byte(s)))
}

func TestParseLine(t *testing.T) {
	for _, c := range lineCases {
		rec, why := parseLine([]byte(c.line))
		if c.bad == "" {
			if why != "" || rec.Seq == 0 {
				t.Errorf("%s: %q", c.name, why)
			}
			continue
		}
		if !bytes.Contains([]byte(why), []byte(c.bad)) {
			t.Errorf("%s: why %q, want %q", c.name, why, c.bad)
		}
	}
}

// FuzzParse: ParseSegment never panics on any bytes; every byte is accounted for (End is within the input, a
// torn tail only at the end); and a good line after anything that ends in a newline is kept.
func FuzzParse(f *testing.F) {
	g := goodLine(f, 3)
	f.Add(g)
	f.Add(append(append([]byte{}, g...), g[:20]...))
	flip := append([]byte{}, g...)
	flip[30] ^= 1
	f.Add(append(flip, g...))
	for _, c := range lineCases {
		f.Add([]byte(c.line + "\n"))
	}
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		s := ParseSegment("seg", b)
		if s.End < 0 || s.End > int64(len(b)) {
			t.Fatalf("End %d of %d bytes", s.End, len(b))
		}
		for i, bad := range s.Bad {
			if bad.Torn && i != len(s.Bad)-1 {
				t.Fatal("a torn line that is not the last")
			}
			if bad.Offset < 0 || bad.Offset > int64(len(b)) || bad.Line < 1 {
				t.Fatalf("bad %+v", bad)
			}
		}
		if s.End < int64(len(b)) && (len(s.Bad) == 0 || !s.Bad[len(s.Bad)-1].Torn) {
			t.Fatal("bytes after End not named torn")
		}
		for _, rec := range s.Records {
			if rec.Seq == 0 {
				t.Fatal("a good record without seq")
			}
			// A record read back writes and reads the same.
			l, err := AppendLine(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			if again := ParseSegment("", l); len(again.Records) != 1 || len(again.Bad) != 0 {
				t.Fatalf("record %+v does not read back: %+v", rec, again.Bad)
			}
		}
		// A good line after the input's complete lines is kept, and what came before is not changed by it.
		in := append(append([]byte{}, b[:s.End]...), g...)
		s2 := ParseSegment("seg", in)
		if len(s2.Records) != len(s.Records)+1 || s2.Records[len(s2.Records)-1].Seq != 3 {
			t.Fatalf("a good line after %q not kept", b[:s.End])
		}
	})
}

// BenchmarkAppend: one record appended, with its share of the batched write and fsync (a Flush every 64
// records stands for the batch delay, so the benchmark waits for no timer).
func BenchmarkAppend(b *testing.B) {
	l, _, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := sample(1)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l.Append(rec)
		if i++; i%64 == 0 {
			if err := l.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := l.Flush(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAppendOnly: Append alone, what the control loop pays (the writer runs beside it).
func BenchmarkAppendOnly(b *testing.B) {
	l, _, err := Open(b.TempDir(), Options{MaxQueue: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := sample(1)
	b.ReportAllocs()
	for b.Loop() {
		l.Append(rec)
	}
}

// BenchmarkOpen1MiB: Open and Close of a log of one full 1 MiB segment.
func BenchmarkOpen1MiB(b *testing.B) {
	dir := b.TempDir()
	var seg []byte
	for seq := uint64(1); len(seg) < DefaultSegmentSize-1000; seq++ {
		seg = append(seg, goodLine(b, seq)...)
	}
	os.MkdirAll(filepath.Join(dir, SubDir), 0o755)
	if err := os.WriteFile(filepath.Join(dir, SubDir, segName(1)), seg, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(seg)))
	b.ReportAllocs()
	for b.Loop() {
		l, r, err := Open(dir, Options{})
		if err != nil || len(r.Bad) != 0 {
			b.Fatal(err, r.Err())
		}
		l.Close()
	}
	b.ReportMetric(float64(len(bytes.Split(seg, []byte("\n")))-1), "records")
}
