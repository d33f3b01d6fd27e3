package board

import (
	"errors"
	"fmt"
)

// Function codes. Codes from FuncCount up are invalid (the firmware's parser drops them).
const (
	FuncSys      byte = 0 // board -> host: battery report (sub 0x04)
	FuncLED      byte = 1
	FuncBuzzer   byte = 2
	FuncMotor    byte = 3
	FuncPWMServo byte = 4
	FuncBusServo byte = 5
	FuncKey      byte = 6
	FuncIMU      byte = 7
	FuncGamepad  byte = 8
	FuncSBUS     byte = 9
	FuncOLED     byte = 10
	FuncRGB      byte = 11
	FuncCount    byte = 12
)

// Baud is the board's line rate, raw 8N1 (chapters 10/11: B1000000).
const Baud = 1_000_000

// Header bytes and sizes of the frame envelope.
const (
	Header0 byte = 0xAA
	Header1 byte = 0x55
	// Overhead is the number of bytes a frame adds to its payload: 2 header, func, len, crc.
	Overhead   = 5
	MaxPayload = 255
)

var funcNames = [...]string{"sys", "led", "buzzer", "motor", "pwm_servo", "bus_servo", "key", "imu", "gamepad", "sbus", "oled", "rgb"}

// FuncName returns a short lower-case name of a function code, or "func_N" for an unknown one.
func FuncName(fn byte) string {
	if int(fn) < len(funcNames) {
		return funcNames[fn]
	}
	return fmt.Sprintf("func_%d", fn)
}

// Errors returned by the encoders and decoders. Decoders wrap them with the offending bytes.
var (
	ErrNonFinite    = errors.New("board: non-finite value")
	ErrOutOfRange   = errors.New("board: value out of range")
	ErrPayloadSize  = errors.New("board: wrong payload size")
	ErrTooLong      = errors.New("board: payload longer than 255 bytes")
	ErrUnknownFunc  = errors.New("board: unknown function code")
	ErrWrongSubcode = errors.New("board: unknown sub-command")
)

// PayloadError is a decode error that carries the payload it refused.
type PayloadError struct {
	Func    byte
	Payload []byte
	Err     error
}

func (e *PayloadError) Error() string {
	return fmt.Sprintf("%s payload % x: %v", FuncName(e.Func), e.Payload, e.Err)
}

func (e *PayloadError) Unwrap() error { return e.Err }

func payloadErr(fn byte, p []byte, err error) error {
	return &PayloadError{Func: fn, Payload: append([]byte(nil), p...), Err: err}
}

// crcTable is CRC-8/MAXIM (Dallas/1-Wire), reflected polynomial 0x8C.
var crcTable = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ 0x8C
			} else {
				c >>= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC8 returns the CRC-8/MAXIM of b (init 0, no final XOR). CRC8([]byte("123456789")) == 0xA1.
func CRC8(b []byte) byte {
	var c byte
	for _, x := range b {
		c = crcTable[c^x]
	}
	return c
}

// Frame is one decoded frame: a function code and its payload (without header, length and checksum).
type Frame struct {
	Func    byte
	Payload []byte
}

// AppendFrame appends the encoded frame to dst.
func AppendFrame(dst []byte, fn byte, payload []byte) ([]byte, error) {
	if len(payload) > MaxPayload {
		return dst, ErrTooLong
	}
	if fn >= FuncCount {
		return dst, fmt.Errorf("%w: %d", ErrUnknownFunc, fn)
	}
	start := len(dst)
	dst = append(dst, Header0, Header1, fn, byte(len(payload)))
	dst = append(dst, payload...)
	return append(dst, CRC8(dst[start+2:])), nil
}

// EncodeFrame returns the encoded frame.
func EncodeFrame(fn byte, payload []byte) ([]byte, error) {
	return AppendFrame(make([]byte, 0, len(payload)+Overhead), fn, payload)
}

// mustFrame encodes a frame whose payload size is fixed by construction.
func mustFrame(fn byte, payload []byte) []byte {
	b, err := EncodeFrame(fn, payload)
	if err != nil {
		panic(err) // unreachable: callers build payloads of fixed, small size with known codes
	}
	return b
}

// Bytes returns the frame encoded for the wire.
func (f Frame) Bytes() ([]byte, error) { return EncodeFrame(f.Func, f.Payload) }
