package capture

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/coind6"
)

// f32 is a float32 that marshals non-finite values as strings: JSON numbers cannot hold NaN or Inf, and a
// motor frame can carry them (the decoder reports what was sent).
type f32 float32

func (f f32) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 32), nil
}

type boardJSON struct {
	Kind       Kind   `json:"kind"`
	Offset     int64  `json:"offset"`
	Size       int    `json:"size"`
	Func       string `json:"func"`
	Code       uint8  `json:"code"`
	Len        int    `json:"len"`
	Value      any    `json:"value,omitempty"`
	PayloadHex string `json:"payload_hex,omitempty"`
	Error      string `json:"error,omitempty"`
}

// MarshalJSON writes the frame as one JSON object: the decoded value, or the payload in hex with the error.
func (r *BoardRecord) MarshalJSON() ([]byte, error) {
	off, size := r.Span()
	j := boardJSON{Kind: Board, Offset: off, Size: size, Func: board.FuncName(r.Frame.Func), Code: r.Frame.Func,
		Len: len(r.Frame.Payload)}
	if r.Err != nil {
		j.PayloadHex, j.Error = hex.EncodeToString(r.Frame.Payload), r.Err.Error()
	} else {
		j.Value = boardValue(r.Value)
	}
	return json.Marshal(j)
}

var buttonNames = []struct {
	bit  uint16
	name string
}{
	{board.BtnL2, "l2"}, {board.BtnR2, "r2"}, {board.BtnSelect, "select"}, {board.BtnStart, "start"},
	{board.BtnL3, "l3"}, {board.BtnR3, "r3"}, {board.BtnCross, "cross"}, {board.BtnCircle, "circle"},
	{board.BtnSquare, "square"}, {board.BtnTriangle, "triangle"}, {board.BtnL1, "l1"}, {board.BtnR1, "r1"},
}

// buttons names the pressed buttons; bits the firmware does not define are shown as bitN (bit4 is this
// toolkit's assumed MODE button, board.DefaultModeBit).
func buttons(b uint16) []string {
	out := []string{}
	for i := range 16 {
		bit := uint16(1) << i
		if b&bit == 0 {
			continue
		}
		name := fmt.Sprintf("bit%d", i)
		for _, n := range buttonNames {
			if n.bit == bit {
				name = n.name
			}
		}
		out = append(out, name)
	}
	return out
}

var keyEventNames = []string{"pressed", "long_press", "long_repeat", "release_from_lp", "release_from_sp", "click", "double", "triple"}

func keyEvents(e uint8) []string {
	out := []string{}
	for i, n := range keyEventNames {
		if e&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

type speedJSON struct {
	ID  uint8 `json:"id"`
	RPS f32   `json:"rps"`
}

// boardValue maps a decoded value to its JSON shape (snake_case, units in the names).
func boardValue(v any) any {
	switch v := v.(type) {
	case board.IMU:
		return struct {
			Accel [3]f32 `json:"accel_g"`
			Gyro  [3]f32 `json:"gyro_dps"`
		}{[3]f32{f32(v.Accel[0]), f32(v.Accel[1]), f32(v.Accel[2])}, [3]f32{f32(v.Gyro[0]), f32(v.Gyro[1]), f32(v.Gyro[2])}}
	case board.Battery:
		return struct {
			MilliVolts uint16  `json:"millivolts"`
			Volts      float64 `json:"volts"`
		}{v.MilliVolts, v.Volts()}
	case board.Gamepad:
		return struct {
			Buttons uint16   `json:"buttons"`
			Pressed []string `json:"pressed"`
			Hat     uint8    `json:"hat"`
			LX      int8     `json:"lx"`
			LY      int8     `json:"ly"`
			RX      int8     `json:"rx"`
			RY      int8     `json:"ry"`
		}{v.Buttons, buttons(v.Buttons), v.Hat, v.LX, v.LY, v.RX, v.RY}
	case board.Key:
		return struct {
			ID     uint8    `json:"id"`
			Event  uint8    `json:"event"`
			Events []string `json:"events"`
		}{v.ID, v.Event, keyEvents(v.Event)}
	case board.MotorCommand:
		j := struct {
			Cmd    string      `json:"cmd"`
			Speeds []speedJSON `json:"speeds,omitempty"`
			Mask   *uint8      `json:"mask,omitempty"`
		}{Cmd: v.Kind.String()}
		for _, s := range v.Speeds {
			j.Speeds = append(j.Speeds, speedJSON{s.ID, f32(s.RPS)})
		}
		if v.Kind == board.MotorStopOne || v.Kind == board.MotorStopMask {
			m := v.Mask
			j.Mask = &m
		}
		return j
	case board.Buzzer:
		return struct {
			FreqHz uint16 `json:"freq_hz"`
			OnMs   uint16 `json:"on_ms"`
			OffMs  uint16 `json:"off_ms"`
			Repeat uint16 `json:"repeat"`
		}{v.FreqHz, v.OnMs, v.OffMs, v.Repeat}
	case board.LED:
		return struct {
			ID     uint8  `json:"id"`
			OnMs   uint16 `json:"on_ms"`
			OffMs  uint16 `json:"off_ms"`
			Repeat uint16 `json:"repeat"`
		}{v.ID, v.OnMs, v.OffMs, v.Repeat}
	}
	return fmt.Sprintf("%+v", v) // a type added to board.Decode later: shown, not lost
}

type pointJSON struct {
	AngleDeg  float64 `json:"angle_deg"`
	DistMM    uint16  `json:"dist_mm"`
	Intensity uint8   `json:"intensity"`
}

type lidarJSON struct {
	Kind      Kind        `json:"kind"`
	Offset    int64       `json:"offset"`
	Size      int         `json:"size"`
	RingStart bool        `json:"ring_start"`
	CT        uint8       `json:"ct"`
	FSADeg    float64     `json:"fsa_deg"`
	LSADeg    float64     `json:"lsa_deg"`
	Samples   int         `json:"samples"`
	Points    []pointJSON `json:"points,omitempty"`
	PacketHex string      `json:"packet_hex,omitempty"`
	Error     string      `json:"error,omitempty"`
}

// MarshalJSON writes the packet as one JSON object with its points (native degrees, clockwise).
func (r *LidarRecord) MarshalJSON() ([]byte, error) {
	off, size := r.Span()
	j := lidarJSON{Kind: Lidar, Offset: off, Size: size}
	if r.Err != nil {
		j.PacketHex, j.Error = hex.EncodeToString(r.Raw), r.Err.Error()
		return json.Marshal(j)
	}
	p := r.Packet
	j.RingStart, j.CT, j.Samples = p.RingStart(), p.CT, len(p.Samples)
	j.FSADeg, j.LSADeg = coind6.RawToDeg(p.FSA), coind6.RawToDeg(p.LSA)
	for _, pt := range p.AppendPoints(nil) {
		j.Points = append(j.Points, pointJSON{pt.AngleDeg, pt.DistMM, pt.Intensity})
	}
	return json.Marshal(j)
}

// MarshalJSON writes the summary line: "frames", "unknown_func", "not_decoded" and "by_func" for board
// captures, "packets" and "ring_starts" for LiDAR captures.
func (s Summary) MarshalJSON() ([]byte, error) {
	if s.Kind == Lidar {
		return json.Marshal(struct {
			Kind         string `json:"kind"`
			Input        Kind   `json:"input"`
			Bytes        uint64 `json:"bytes"`
			Packets      uint64 `json:"packets"`
			RingStarts   uint64 `json:"ring_starts"`
			BadChecksum  uint64 `json:"bad_checksum"`
			SkippedBytes uint64 `json:"skipped_bytes"`
			PendingBytes uint64 `json:"pending_bytes"`
			BadPayload   uint64 `json:"bad_payload"`
		}{"summary", s.Kind, s.Bytes, s.Records, s.RingStarts, s.BadChecksum, s.SkippedBytes, s.PendingBytes, s.BadPayload})
	}
	byFunc := s.ByFunc
	if byFunc == nil {
		byFunc = map[string]uint64{}
	}
	return json.Marshal(struct {
		Kind         string            `json:"kind"`
		Input        Kind              `json:"input"`
		Bytes        uint64            `json:"bytes"`
		Frames       uint64            `json:"frames"`
		BadChecksum  uint64            `json:"bad_checksum"`
		UnknownFunc  uint64            `json:"unknown_func"`
		SkippedBytes uint64            `json:"skipped_bytes"`
		PendingBytes uint64            `json:"pending_bytes"`
		BadPayload   uint64            `json:"bad_payload"`
		NotDecoded   uint64            `json:"not_decoded"`
		ByFunc       map[string]uint64 `json:"by_func"`
	}{"summary", s.Kind, s.Bytes, s.Records, s.BadChecksum, s.UnknownFunc, s.SkippedBytes, s.PendingBytes,
		s.BadPayload, s.NotDecoded, byFunc})
}
