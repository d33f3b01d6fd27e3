package capture

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// ringStart is the chapter 14 revolution-start packet.
var ringStart = []byte{0xaa, 0x55, 0xc9, 0x01, 0x7b, 0xb3, 0x7b, 0xb3, 0x2c, 0x54, 0x4c, 0x03, 0x00}

// decodeAll runs Decode and returns the JSON lines of the records, the records and the summary.
func decodeAll(t *testing.T, r io.Reader, kind Kind) ([]string, []Record, Summary) {
	t.Helper()
	var lines []string
	var recs []Record
	s, err := Decode(r, kind, func(rec Record) error {
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatalf("marshal %#v: %v", rec, err)
		}
		lines = append(lines, string(b))
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines, recs, s
}

// checkAccounting: every input byte is in a record, skipped or pending; offsets increase and the records
// are the input bytes at those offsets.
func checkAccounting(t *testing.T, data []byte, recs []Record, s Summary) {
	t.Helper()
	var rb uint64
	last := int64(-1)
	for _, r := range recs {
		off, size := r.Span()
		if off <= last || off+int64(size) > int64(len(data)) {
			t.Fatalf("record at %d (+%d) after %d in %d bytes", off, size, last, len(data))
		}
		last = off
		rb += uint64(size)
		var raw []byte
		switch r := r.(type) {
		case *BoardRecord:
			raw = must(board.EncodeFrame(r.Frame.Func, r.Frame.Payload))
		case *LidarRecord:
			raw = r.Raw
		}
		if !bytes.Equal(data[off:off+int64(size)], raw) {
			t.Fatalf("record at %d is % x, input there is % x", off, raw, data[off:off+int64(size)])
		}
	}
	if rb != s.RecordBytes || uint64(len(recs)) != s.Records {
		t.Fatalf("summary says %d records of %d bytes, saw %d of %d", s.Records, s.RecordBytes, len(recs), rb)
	}
	if s.Bytes != uint64(len(data)) || rb+s.SkippedBytes+s.PendingBytes != s.Bytes {
		t.Fatalf("%d record bytes + %d skipped + %d pending != %d bytes (input %d)", rb, s.SkippedBytes, s.PendingBytes, s.Bytes, len(data))
	}
}

func nanMotorFrame() []byte {
	p := []byte{0x01, 0x02, 0x00}
	p = binary.LittleEndian.AppendUint32(p, math.Float32bits(float32(math.NaN())))
	p = append(p, 0x01)
	p = binary.LittleEndian.AppendUint32(p, math.Float32bits(float32(math.Inf(-1))))
	return must(board.EncodeFrame(board.FuncMotor, p))
}

func TestDecodeBoardRecords(t *testing.T) {
	frames := [][]byte{
		board.EncodeBattery(board.Battery{MilliVolts: 7400}),
		board.EncodeIMU(board.IMU{Accel: [3]float32{0.01, -0.02, 0.99}, Gyro: [3]float32{0, 0.5, -12.25}}),
		board.EncodeGamepad(board.Gamepad{Buttons: board.BtnL1 | board.BtnCross | 1<<board.DefaultModeBit, Hat: 8, LX: -128, LY: 127}),
		board.EncodeKey(board.Key{ID: 1, Event: board.KeyPressed | board.KeyClick}),
		must(board.EncodeWheelRPS([4]float64{0.5, -0.5, 0, 1.25})),
		board.EncodeMotorStopMask(0x0F),
		board.EncodeMotorStopOne(0),
		board.EncodeBuzzer(board.Buzzer{FreqHz: 1400, OnMs: 100, OffMs: 100, Repeat: 5}),
		board.EncodeLED(board.LED{ID: 1, OnMs: 100, OffMs: 100, Repeat: 5}),
		must(board.EncodeFrame(board.FuncBusServo, []byte{1, 2, 3})), // no decoder
		must(board.EncodeFrame(board.FuncIMU, make([]byte, 23))),     // wrong size
		nanMotorFrame(),
	}
	data := append([]byte{0x00, 0xAA}, bytes.Join(frames, nil)...)
	lines, recs, s := decodeAll(t, bytes.NewReader(data), Board)
	checkAccounting(t, data, recs, s)
	want := []string{
		`{"kind":"board","offset":2,"size":8,"func":"sys","code":0,"len":3,"value":{"millivolts":7400,"volts":7.4}}`,
		`{"kind":"board","offset":10,"size":29,"func":"imu","code":7,"len":24,"value":{"accel_g":[0.01,-0.02,0.99],"gyro_dps":[0,0.5,-12.25]}}`,
		`{"kind":"board","offset":39,"size":12,"func":"gamepad","code":8,"len":7,"value":{"buttons":16656,"pressed":["bit4","cross","l1"],"hat":8,"lx":-128,"ly":127,"rx":0,"ry":0}}`,
		`{"kind":"board","offset":51,"size":7,"func":"key","code":6,"len":2,"value":{"id":1,"event":33,"events":["pressed","click"]}}`,
		`{"kind":"board","offset":58,"size":27,"func":"motor","code":3,"len":22,"value":{"cmd":"set_many","speeds":[{"id":0,"rps":0.5},{"id":1,"rps":-0.5},{"id":2,"rps":0},{"id":3,"rps":1.25}]}}`,
		`{"kind":"board","offset":85,"size":7,"func":"motor","code":3,"len":2,"value":{"cmd":"stop_mask","mask":15}}`,
		`{"kind":"board","offset":92,"size":7,"func":"motor","code":3,"len":2,"value":{"cmd":"stop_one","mask":1}}`,
		`{"kind":"board","offset":99,"size":13,"func":"buzzer","code":2,"len":8,"value":{"freq_hz":1400,"on_ms":100,"off_ms":100,"repeat":5}}`,
		`{"kind":"board","offset":112,"size":12,"func":"led","code":1,"len":7,"value":{"id":1,"on_ms":100,"off_ms":100,"repeat":5}}`,
		`{"kind":"board","offset":124,"size":8,"func":"bus_servo","code":5,"len":3,"payload_hex":"010203","error":"bus_servo payload 01 02 03: board: unknown function code"}`,
		`{"kind":"board","offset":132,"size":28,"func":"imu","code":7,"len":23,"payload_hex":"0000000000000000000000000000000000000000000000","error":"imu payload 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00: board: wrong payload size"}`,
		`{"kind":"board","offset":160,"size":17,"func":"motor","code":3,"len":12,"value":{"cmd":"set_many","speeds":[{"id":0,"rps":"NaN"},{"id":1,"rps":"-Inf"}]}}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("record %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
	if s.Records != 12 || s.SkippedBytes != 2 || s.BadPayload != 1 || s.NotDecoded != 1 || s.ByFunc["motor"] != 4 || s.PendingBytes != 0 {
		t.Errorf("summary %+v", s)
	}
	sj := string(must(json.Marshal(s)))
	wantS := `{"kind":"summary","input":"board","bytes":177,"frames":12,"bad_checksum":0,"unknown_func":0,"skipped_bytes":2,"pending_bytes":0,"bad_payload":1,"not_decoded":1,"by_func":{"bus_servo":1,"buzzer":1,"gamepad":1,"imu":2,"key":1,"led":1,"motor":4,"sys":1}}`
	if sj != wantS {
		t.Errorf("summary:\n got %s\nwant %s", sj, wantS)
	}
}

func TestDecodeLidarRecords(t *testing.T) {
	normal := coind6.Packet{FSA: coind6.DegToRaw(355), LSA: coind6.DegToRaw(5), Samples: make([]coind6.Sample, 25)}
	normal.Samples[12] = coind6.Sample{Intensity: 200, DistMM: 1500, Flags: 3}
	data := append(bytes.Clone(ringStart[5:]), ringStart...) // starts mid-packet
	data = append(data, must(coind6.Encode(normal))...)
	data = append(data, ringStart[:7]...) // cut off
	lines, recs, s := decodeAll(t, bytes.NewReader(data), Lidar)
	checkAccounting(t, data, recs, s)
	if len(lines) != 2 {
		t.Fatalf("%d records", len(lines))
	}
	if want := `{"kind":"lidar","offset":8,"size":13,"ring_start":true,"ct":201,"fsa_deg":358.953125,"lsa_deg":358.953125,"samples":1,"points":[{"angle_deg":358.953125,"dist_mm":0,"intensity":76}]}`; lines[0] != want {
		t.Errorf("ring start:\n got %s\nwant %s", lines[0], want)
	}
	var pkt struct {
		Points []struct {
			AngleDeg float64 `json:"angle_deg"`
			DistMM   int     `json:"dist_mm"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &pkt); err != nil || len(pkt.Points) != 25 || pkt.Points[12].AngleDeg != 0 || pkt.Points[12].DistMM != 1500 {
		t.Errorf("wrapping packet: %v %s", err, lines[1])
	}
	if want := `{"kind":"summary","input":"lidar","bytes":113,"packets":2,"ring_starts":1,"bad_checksum":0,"skipped_bytes":8,"pending_bytes":7,"bad_payload":0}`; string(must(json.Marshal(s))) != want {
		t.Errorf("summary:\n got %s\nwant %s", must(json.Marshal(s)), want)
	}
}

// mixed returns a stream of real frames or packets of the kind, random bytes and truncated pieces.
func mixed(kind Kind, seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	var pieces [][]byte
	if kind == Board {
		pieces = [][]byte{board.EncodeBattery(board.Battery{MilliVolts: 7000}), board.StopFrame(), nanMotorFrame(),
			board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}}), {0xAA, 0x55, 0x07, 0x18}, {0xAA, 0x55, 0x0C}}
	} else {
		p := coind6.Packet{FSA: coind6.DegToRaw(10), LSA: coind6.DegToRaw(30), Samples: make([]coind6.Sample, 25)}
		for i := range p.Samples {
			p.Samples[i] = coind6.Sample{Intensity: 0xAA, DistMM: 21 + 64*uint16(i), Flags: 1} // AA 55 in every sample
		}
		pieces = [][]byte{ringStart, must(coind6.Encode(p)), {0xAA, 0x55, 0x00, 0xFF}}
	}
	var data []byte
	for range n {
		if rng.IntN(3) == 0 {
			for range rng.IntN(8) {
				data = append(data, byte(rng.UintN(256)))
			}
		}
		p := pieces[rng.IntN(len(pieces))]
		if rng.IntN(6) == 0 {
			p = p[:rng.IntN(len(p))]
		}
		data = append(data, p...)
	}
	return data
}

// TestDecodeChunkingIndependent: the JSON output and the summary do not depend on how the input is read.
func TestDecodeChunkingIndependent(t *testing.T) {
	for _, kind := range []Kind{Board, Lidar} {
		for seed := range uint64(5) {
			data := mixed(kind, seed, 200)
			want, recs, ws := decodeAll(t, bytes.NewReader(data), kind)
			checkAccounting(t, data, recs, ws)
			for name, r := range map[string]io.Reader{
				"OneByteReader": iotest.OneByteReader(bytes.NewReader(data)),
				"HalfReader":    iotest.HalfReader(bytes.NewReader(data)),
				"DataErrReader": iotest.DataErrReader(bytes.NewReader(data)),
			} {
				got, _, gs := decodeAll(t, r, kind)
				if strings.Join(got, "\n") != strings.Join(want, "\n") || string(must(json.Marshal(gs))) != string(must(json.Marshal(ws))) {
					t.Fatalf("%s %s seed %d: output differs from the whole-buffer read", kind, name, seed)
				}
			}
		}
	}
}

// TestCloseRecoversFramesBehindFalseHeaderAtEOF: a false header near the end of a capture claims more bytes
// than the capture has; the frames behind it must still come out, and only the false header's bytes count
// as pending.
func TestCloseRecoversFramesBehindFalseHeaderAtEOF(t *testing.T) {
	bat := board.EncodeBattery(board.Battery{MilliVolts: 7300})
	data := append([]byte{0xAA, 0x55, 0x07, 0xFF}, bytes.Repeat(bat, 3)...) // false IMU header claiming 255 bytes
	data = append(data, bat[:5]...)                                         // and a real frame cut off
	d := must(NewDecoder(Board))
	var recs []Record
	emit := func(r Record) { recs = append(recs, r) }
	d.Feed(data, emit)
	if len(recs) != 0 || d.Summary().PendingBytes != uint64(len(data)) {
		t.Fatalf("before Close: %d records, %+v; the parser must still be waiting for the false frame", len(recs), d.Summary())
	}
	s := d.Close(emit)
	if len(recs) != 3 || s.PendingBytes != 4+5 || s.SkippedBytes != 0 {
		t.Fatalf("after Close: %d records, summary %+v; want 3 frames and 9 pending bytes", len(recs), s)
	}
	checkAccounting(t, data, recs, s)
	if s2 := d.Close(emit); len(recs) != 3 || s2.PendingBytes != s.PendingBytes {
		t.Fatal("second Close changed something")
	}

	// The same for LiDAR: AA 55 00 FF claims 775 bytes.
	lid := append([]byte{0xAA, 0x55, 0x00, 0xFF, 0, 0, 0, 0, 0, 0}, bytes.Repeat(ringStart, 4)...)
	_, lrecs, ls := decodeAll(t, bytes.NewReader(lid), Lidar)
	if len(lrecs) != 4 || ls.PendingBytes != 10 || ls.RingStarts != 4 {
		t.Fatalf("lidar: %d records, summary %+v; want the 4 packets behind the false header", len(lrecs), ls)
	}
	checkAccounting(t, lid, lrecs, ls)
}

func TestDecodeEmptyAndGarbage(t *testing.T) {
	for _, kind := range []Kind{Board, Lidar} {
		_, recs, s := decodeAll(t, bytes.NewReader(nil), kind)
		if len(recs) != 0 || s.Bytes != 0 || s.Records != 0 || s.PendingBytes != 0 {
			t.Errorf("%s empty: %+v", kind, s)
		}
		rng := rand.New(rand.NewPCG(5, 5))
		garbage := make([]byte, 100000)
		for i := range garbage {
			garbage[i] = byte(rng.UintN(256))
		}
		_, recs, s = decodeAll(t, bytes.NewReader(garbage), kind)
		checkAccounting(t, garbage, recs, s)
		if s.BadChecksum+s.UnknownFunc == 0 || s.Records != 0 {
			t.Errorf("%s: 100 kB of random bytes: %+v; want false headers rejected and no record", kind, s)
		}
	}
}

type errAfter struct {
	r   io.Reader
	n   int
	err error
}

func (e *errAfter) Read(b []byte) (int, error) {
	if e.n <= 0 {
		return 0, e.err
	}
	n, err := e.r.Read(b[:min(len(b), e.n)])
	e.n -= n
	return n, err
}

func TestDecodeErrors(t *testing.T) {
	data := bytes.Repeat(board.EncodeBattery(board.Battery{MilliVolts: 7400}), 100)
	boom := errors.New("usb unplugged")
	n := 0
	s, err := Decode(&errAfter{bytes.NewReader(data), 80, boom}, Board, func(Record) error { n++; return nil })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "after 80 bytes") || n != 10 || s.Records != 10 {
		t.Errorf("read error: %v, %d records, %+v", err, n, s)
	}
	stop := errors.New("stdout closed")
	n = 0
	_, err = Decode(bytes.NewReader(data), Board, func(Record) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("emit error: %v after %d records; want it returned after the first", err, n)
	}
	_, err = Decode(iotest.ErrReader(nil), Board, func(Record) error { return nil }) // (0, nil) forever
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("reader without progress: %v", err)
	}
	if _, err := Decode(bytes.NewReader(data), "gps", nil); err == nil || !strings.Contains(err.Error(), "board") {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := ParseKind("Board"); err == nil {
		t.Error("ParseKind is case-sensitive: flags are lower case")
	}
}

// streamReader serves n copies of chunk, checking on every read that the decoder has already emitted
// records from earlier reads: proof that the input is streamed, not slurped.
type streamReader struct {
	t       *testing.T
	chunk   []byte
	left    int
	reads   int
	emitted *int
	maxRead int
}

func (s *streamReader) Read(b []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	s.reads++
	s.maxRead = max(s.maxRead, len(b))
	if s.reads > 3 && *s.emitted == 0 {
		s.t.Fatalf("read %d and no record emitted yet: the decoder is not streaming", s.reads)
	}
	n := copy(b, s.chunk)
	s.left--
	return n, nil
}

func TestDecodeStreams(t *testing.T) {
	chunk := bytes.Repeat(board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}}), 1000) // 29 kB
	emitted := 0
	r := &streamReader{t: t, chunk: chunk, left: 700, emitted: &emitted} // 20 MB in all
	s, err := Decode(r, Board, func(Record) error { emitted++; return nil })
	if err != nil || s.Records != 700*1000 || s.Bytes != uint64(700*len(chunk)) {
		t.Fatalf("%v, %+v", err, s)
	}
	if r.maxRead > ReadSize {
		t.Fatalf("read buffer of %d bytes", r.maxRead)
	}
}

// FuzzDecode: any bytes, either kind, give records that marshal to valid JSON, satisfy the byte accounting,
// and are the same when the input arrives in two chunks.
func FuzzDecode(f *testing.F) {
	f.Add(mixed(Board, 1, 20), false, uint(10))
	f.Add(mixed(Lidar, 1, 10), true, uint(100))
	f.Add(nanMotorFrame(), false, uint(3))
	f.Add(ringStart, true, uint(1))
	f.Fuzz(func(t *testing.T, data []byte, lidar bool, split uint) {
		kind := Board
		if lidar {
			kind = Lidar
		}
		var out [2][]string
		var sums [2]Summary
		for i := range 2 {
			d := must(NewDecoder(kind))
			var recs []Record
			emit := func(r Record) {
				b, err := json.Marshal(r)
				if err != nil || !json.Valid(b) {
					t.Fatalf("record %#v: %s, %v", r, b, err)
				}
				out[i] = append(out[i], string(b))
				recs = append(recs, r)
			}
			cut := len(data)
			if i == 1 {
				cut = int(split % uint(len(data)+1))
			}
			d.Feed(data[:cut], emit)
			d.Feed(data[cut:], emit)
			sums[i] = d.Close(emit)
			checkAccounting(t, data, recs, sums[i])
			if b, err := json.Marshal(sums[i]); err != nil || !json.Valid(b) {
				t.Fatalf("summary: %s, %v", b, err)
			}
		}
		if strings.Join(out[0], "\n") != strings.Join(out[1], "\n") {
			t.Fatalf("two chunks give different records")
		}
	})
}

// TestDecoderTailAcrossChunkSizes feeds long mixed streams in random chunks from 0 to 3000 bytes (around the
// 1024-byte tail Close keeps) and compares records and summary with one whole feed.
func TestDecoderTailAcrossChunkSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, kind := range []Kind{Board, Lidar} {
		for seed := range uint64(20) {
			data := mixed(kind, 100+seed, 300)
			data = append(data, 0xAA, 0x55, 0x00, 0xFF) // end inside a long false header
			data = append(data, mixed(kind, 200+seed, 5)...)
			feed := func(next func() int) ([]string, Summary) {
				d := must(NewDecoder(kind))
				var out []string
				emit := func(r Record) { out = append(out, string(must(json.Marshal(r)))) }
				for rest := data; len(rest) > 0; {
					n := min(next(), len(rest))
					d.Feed(rest[:n], emit)
					rest = rest[n:]
				}
				return out, d.Close(emit)
			}
			want, ws := feed(func() int { return len(data) })
			got, gs := feed(func() int { return rng.IntN(3001) })
			if strings.Join(got, "\n") != strings.Join(want, "\n") || string(must(json.Marshal(gs))) != string(must(json.Marshal(ws))) {
				t.Fatalf("%s seed %d: random chunks differ from one feed:\n%+v\n%+v", kind, seed, gs, ws)
			}
		}
	}
}
