package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Fuzz targets for the control socket's JSON parsers (issue 31): the bodies and stream lines a client of the
// socket sends. Each checks properties, not only the absence of a panic: what a parser accepts is finite,
// within its documented bounds and reads back to the same value from its own encoding; what it refuses wraps
// ErrBadMessage (the transport's 400). The runtime parameters' body (POST /v1/config) is no parser of this
// package: it is handed to the driver, whose parser config.DecodeValues has its own target
// (driver/config FuzzDecodeValues).
//
// jsonSpace is JSON's whitespace (RFC 8259): what may follow the one value of a body.
const jsonSpace = " \t\r\n"

// trailingAccepted checks that an accepted body b held one JSON value and only JSON whitespace after it.
func trailingAccepted(t *testing.T, b []byte) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		t.Fatalf("accepted %q, which is no JSON value: %v", b, err)
	}
	rest := strings.TrimLeft(string(b[d.InputOffset():]), jsonSpace)
	if rest != "" {
		t.Fatalf("accepted %q with data after the JSON value: %q", b, rest)
	}
}

func refusedBadMessage(t *testing.T, what string, b []byte, err error) {
	t.Helper()
	if !errors.Is(err, ErrBadMessage) {
		t.Fatalf("%s refused %q with %v, which does not wrap ErrBadMessage (the transport's 400)", what, b, err)
	}
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// members are the keys with non-null values of the object b begins with (nil when it begins with none).
func members(b []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.NewDecoder(bytes.NewReader(b)).Decode(&m) != nil {
		return nil
	}
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	return m
}

// foldedIn reports whether k matches one of names as encoding/json matches a key to a field (case folded).
func foldedIn(k string, names ...string) bool {
	for _, n := range names {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}

// FuzzParseTwist: a velocity command (POST /v1/cmd_vel and each line of its stream). Accepted: finite
// components, one shape only (flat or ROS), no data after the value, and the flat and the ROS encoding of the
// result parse back to it bit for bit.
func FuzzParseTwist(f *testing.F) {
	for _, s := range []string{
		`{"vx":0.1,"vy":-0.05,"wz":0.5}`, `{"vx":0.1}`, `{"wz":-0}`, `{"vx":1e30}`, `{"VX":0.2}`, `{"vx":0.1,"linear":null}`,
		`{"linear":{"x":0.1,"y":0.2,"z":0},"angular":{"x":0,"y":0,"z":-0.3}}`, `{"angular":{"z":1}}`, `{"linear":{}}`,
		`{}`, `null`, ``, `[0.1,0,0]`, `{"vx":"1"}`, `{"vx":NaN}`, `{"vx":Infinity}`, `{"vx":1e999}`, `{"vx":-1e309}`,
		`{"vx":0.1,"linear":{"x":0.1}}`, `{"linear":{"z":0.1}}`, `{"angular":{"x":0.1}}`, `{"vx":0.1,"extra":1}`,
		`{"vx":0.1} {"vx":0.2}`, `{"vx":0.1}]`, `{"vx":0.1,}`, `{"vx":0.1` + "\n", `{"vx":1,"vx":2}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tw, err := ParseTwist(b)
		if err != nil {
			refusedBadMessage(t, "ParseTwist", b, err)
			return
		}
		for _, v := range []float64{tw.VX, tw.VY, tw.WZ} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("ParseTwist(%q) = %+v: not finite", b, tw)
			}
		}
		trailingAccepted(t, b)
		var flat, ros bool
		for k := range members(b) {
			switch {
			case foldedIn(k, "vx", "vy", "wz"):
				flat = true
			case foldedIn(k, "linear", "angular"):
				ros = true
			default:
				t.Fatalf("ParseTwist(%q) accepted the unknown field %q", b, k)
			}
		}
		if flat == ros {
			t.Fatalf("ParseTwist(%q) = %+v: accepted with flat fields %v and ROS fields %v", b, tw, flat, ros)
		}
		flatJSON, err := json.Marshal(tw)
		if err != nil {
			t.Fatal(err)
		}
		rosJSON, err := json.Marshal(map[string]map[string]float64{"linear": {"x": tw.VX, "y": tw.VY}, "angular": {"z": tw.WZ}})
		if err != nil {
			t.Fatal(err)
		}
		for _, enc := range [][]byte{flatJSON, rosJSON} {
			back, err := ParseTwist(enc)
			if err != nil || !sameBits(back.VX, tw.VX) || !sameBits(back.VY, tw.VY) || !sameBits(back.WZ, tw.WZ) {
				t.Fatalf("ParseTwist(%q) = %+v, but its encoding %s parses to %+v, %v", b, tw, enc, back, err)
			}
		}
	})
}

// FuzzParseBool: the body of POST /v1/enable ({"data": true|false}, the field required). Accepted: the value
// is the one "data" member's, no data after the value, and its encoding parses back to it.
func FuzzParseBool(f *testing.F) {
	for _, s := range []string{
		`{"data":true}`, `{"data":false}`, ` {"Data": true}` + "\n", `{"data":false,"data":true}`,
		`{}`, `{"data":null}`, `{"data":1}`, `{"data":"true"}`, `{"data":true,"x":1}`, `true`, `null`, ``,
		`{"data":true}{"data":false}`, `{"data":true}]`, `[{"data":true}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseBool(b)
		if err != nil {
			refusedBadMessage(t, "ParseBool", b, err)
			return
		}
		trailingAccepted(t, b)
		var data []json.RawMessage
		for k, raw := range members(b) {
			if !foldedIn(k, "data") {
				t.Fatalf("ParseBool(%q) accepted the unknown field %q", b, k)
			}
			data = append(data, raw)
		}
		if len(data) == 0 {
			t.Fatalf("ParseBool(%q) = %v without a \"data\" member", b, v)
		}
		if len(data) == 1 && string(data[0]) != fmt.Sprint(v) {
			t.Fatalf("ParseBool(%q) = %v, but its data member is %s", b, v, data[0])
		}
		back, err := ParseBool([]byte(fmt.Sprintf(`{"data":%v}`, v)))
		if err != nil || back != v {
			t.Fatalf("ParseBool(%q) = %v, but its encoding parses to %v, %v", b, v, back, err)
		}
	})
}

// FuzzScanBody: a scan (POST /v1/scan and each line of its stream) as the server reads it: strictUnmarshal
// into Scan, then Validate. A scan Validate accepts has finite header numbers, 1..MaxScanBins ranges, no NaN
// range, intensities none or one per range, a stamp; and its encoding reads back and validates to the same
// scan. A range below float32's (-Inf) is written as null and reads back +Inf ("no return"): the only change
// a round trip makes.
func FuzzScanBody(f *testing.F) {
	good := Scan{Stamp: time.Date(2026, 12, 4, 10, 0, 0, 123456789, time.UTC), FrameID: "laser", ScanTime: 0.1,
		TimeIncrement: 0.1 / 400, AngleMin: -math.Pi, AngleMax: math.Pi, AngleIncrement: 2 * math.Pi / 400,
		RangeMin: 0.05, RangeMax: 12, Ranges: Ranges{0.5, float32(math.Inf(1)), 3.25, 0}, Intensities: []float32{10, 0, 200, 1}}
	gb, err := json.Marshal(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(gb)
	for _, s := range []string{
		`{"stamp":"2026-12-04T10:00:00Z","frame_id":"laser","scan_time":0.1,"time_increment":0.00025,"angle_min":0,` +
			`"angle_max":6.28,"angle_increment":-0.0157,"range_min":0.05,"range_max":12,"ranges":[1,null,2]}`,
		`{"stamp":"2026-12-04T10:00:00+01:00","ranges":[-1e39,1e39,3]}`,
		`{"stamp":"2026-12-04T10:00:00Z","ranges":[]}`,
		`{"stamp":"2026-12-04T10:00:00Z","ranges":[1,2],"intensities":[1]}`,
		`{"stamp":"2026-12-04T10:00:00Z","ranges":[1],"intensities":[1e39]}`,
		`{"ranges":[1]}`, `{"stamp":"0001-01-01T00:00:00Z","ranges":[1]}`,
		`{"stamp":"2026-12-04T10:00:00Z","ranges":[1],"scan_time":NaN}`,
		`{"stamp":"2026-12-04T10:00:00Z","ranges":[1],"range_max":1e999}`,
		`{"stamp":"2026-12-04T10:00:00Z","ranges":[1],"extra":1}`,
		`{"stamp":"2026-12-04T10:00:00Z","ranges":[1]} {}`, `{"stamp":"2026-12-04T10:00:00Z","ranges":[1]}}`,
		`{"stamp":"tuesday","ranges":[1]}`, `{"stamp":"2026-12-04T10:00:00Z","ranges":"1"}`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var sc Scan
		if err := strictUnmarshal(b, &sc); err != nil {
			refusedBadMessage(t, "strictUnmarshal(Scan)", b, err)
			return
		}
		if err := sc.Validate(); err != nil {
			refusedBadMessage(t, "Scan.Validate", b, err)
			return
		}
		trailingAccepted(t, b)
		for _, v := range []float64{sc.ScanTime, sc.TimeIncrement, sc.AngleMin, sc.AngleMax, sc.AngleIncrement, sc.RangeMin, sc.RangeMax} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("Validate accepted a header number %v in %q", v, b)
			}
		}
		if n := len(sc.Ranges); n < 1 || n > MaxScanBins {
			t.Fatalf("Validate accepted %d ranges", n)
		}
		if n := len(sc.Intensities); n != 0 && n != len(sc.Ranges) {
			t.Fatalf("Validate accepted %d intensities for %d ranges", n, len(sc.Ranges))
		}
		if sc.Stamp.IsZero() {
			t.Fatalf("Validate accepted a scan without a stamp: %q", b)
		}
		for i, r := range sc.Ranges {
			if math.IsNaN(float64(r)) {
				t.Fatalf("range %d is NaN (from %q)", i, b)
			}
		}
		for i, v := range sc.Intensities {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("intensity %d is %v (from %q)", i, v, b)
			}
		}
		enc, err := json.Marshal(sc)
		if err != nil {
			t.Fatalf("an accepted scan does not encode: %v (from %q)", err, b)
		}
		var back Scan
		if err := strictUnmarshal(enc, &back); err != nil {
			t.Fatalf("the encoding %s of an accepted scan is refused: %v", enc, err)
		}
		if err := back.Validate(); err != nil {
			t.Fatalf("the encoding %s of an accepted scan does not validate: %v", enc, err)
		}
		same := back.Stamp.Equal(sc.Stamp) && back.FrameID == sc.FrameID && sameBits(back.ScanTime, sc.ScanTime) &&
			sameBits(back.TimeIncrement, sc.TimeIncrement) && sameBits(back.AngleMin, sc.AngleMin) &&
			sameBits(back.AngleMax, sc.AngleMax) && sameBits(back.AngleIncrement, sc.AngleIncrement) &&
			sameBits(back.RangeMin, sc.RangeMin) && sameBits(back.RangeMax, sc.RangeMax) &&
			len(back.Ranges) == len(sc.Ranges) && len(back.Intensities) == len(sc.Intensities)
		for i := 0; same && i < len(sc.Ranges); i++ {
			r, q := float64(sc.Ranges[i]), float64(back.Ranges[i])
			same = r == q || math.IsInf(r, -1) && math.IsInf(q, 1)
		}
		for i := 0; same && i < len(sc.Intensities); i++ {
			same = sc.Intensities[i] == back.Intensities[i]
		}
		if !same {
			t.Fatalf("scan %+v reads back from its encoding %s as %+v", sc, enc, back)
		}
	})
}

// FuzzContactRequest: the body of POST /v1/contact as the server reads it (strictUnmarshal, then Validate).
// Validate accepts exactly the documented requests: 0 <= for_s <= MaxContactOverride, mode "", "act" or
// "log", and log only with a for_s (a log mode that ends by itself); an accepted request reads back from its
// encoding unchanged.
func FuzzContactRequest(f *testing.F) {
	for _, s := range []string{
		`{"mode":"log","for_s":60}`, `{"mode":"act"}`, `{"mode":""}`, `{}`, `{"mode":"act","for_s":600}`,
		`{"mode":"log","for_s":600.0000001}`, `{"mode":"log"}`, `{"mode":"log","for_s":0}`, `{"mode":"log","for_s":-0}`,
		`{"mode":"log","for_s":-1}`, `{"mode":"LOG","for_s":5}`, `{"mode":"off"}`, `{"for_s":1e999}`, `{"for_s":NaN}`,
		`{"mode":"act","extra":1}`, `{"mode":"act"}]`, `{"Mode":"log","FOR_S":5}`, `null`, ``, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var q ContactRequest
		if err := strictUnmarshal(b, &q); err != nil {
			refusedBadMessage(t, "strictUnmarshal(ContactRequest)", b, err)
			return
		}
		spec := !math.IsNaN(q.ForS) && q.ForS >= 0 && q.ForS <= MaxContactOverride &&
			(q.Mode == "" || q.Mode == "act" || q.Mode == "log") && !(q.Mode == "log" && q.ForS == 0)
		err := q.Validate()
		if (err == nil) != spec {
			t.Fatalf("Validate(%+v) = %v; the documented rule says accepted = %v (from %q)", q, err, spec, b)
		}
		if err != nil {
			return
		}
		trailingAccepted(t, b)
		enc, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		var back ContactRequest
		if err := strictUnmarshal(enc, &back); err != nil || back.Validate() != nil || back.Mode != q.Mode || !sameBits(back.ForS, q.ForS) {
			t.Fatalf("request %+v reads back from its encoding %s as %+v (%v)", q, enc, back, err)
		}
	})
}

// FuzzEStopBody: POST /v1/estop with any body. An e-stop is never refused: every body latches it, with the
// body's reason when it is one well-formed {"data":true,"reason":"..."}, with "unreadable estop request
// body" when it is not JSON of that shape, with no reason when it is empty; the one exception is a
// well-formed {"data":false} (std_msgs/Bool false), which latches nothing. The handler runs as the server
// runs it, without the socket.
func FuzzEStopBody(f *testing.F) {
	for _, s := range []string{
		``, ` `, `{}`, `{"reason":"operator"}`, `{"data":true}`, `{"data":true,"reason":"bumper"}`, `{"data":false}`,
		`{"data":false,"reason":"x"}`, `{"Data":false}`, `{"data":false,"data":true}`, `{"data":true,"data":false}`,
		`{"data":null}`, `{"data":"false"}`, `{"data":0}`, `{"data":false,"extra":1}`, `{"data":false} {}`,
		`{"data":false}]`, `[{"data":false}]`, `false`, `null`, `stop!`, "\x00\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h := &fakeHandler{}
		s := &Server{h: h}
		w := httptest.NewRecorder()
		s.postEStop(w, httptest.NewRequest(http.MethodPost, "/v1/estop", bytes.NewReader(b)))

		read := b[:min(len(b), MaxSafetyBody)] // the server reads no further
		var body struct {
			Data   *bool  `json:"data"`
			Reason string `json:"reason"`
		}
		var reason string
		switch {
		case len(bytes.TrimSpace(read)) == 0:
		case strictUnmarshal(read, &body) != nil:
			reason = "unreadable estop request body"
		case body.Data != nil && !*body.Data:
			if len(h.estops) != 0 || w.Code != http.StatusOK {
				t.Fatalf("body %q (data false): %d e-stops, HTTP %d; want none, 200", b, len(h.estops), w.Code)
			}
			return
		default:
			reason = body.Reason
		}
		if len(h.estops) != 1 || w.Code != http.StatusOK {
			t.Fatalf("body %q: %d e-stops, HTTP %d %s; want it latched once, 200", b, len(h.estops), w.Code, w.Body)
		}
		if h.estops[0] != reason {
			t.Fatalf("body %q: latched with reason %q, want %q", b, h.estops[0], reason)
		}
	})
}
