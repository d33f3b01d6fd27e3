package board_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/rosorin/rosorin/protocol/board"
)

// A Parser is fed whatever the port returns; it emits each valid frame once, whatever the chunking.
func ExampleParser() {
	stream := append([]byte{0x13, 0x37}, board.EncodeBattery(board.Battery{MilliVolts: 7400})...) // garbage first
	stream = append(stream, board.EncodeIMU(board.IMU{Accel: [3]float32{0, 0, 1}, Gyro: [3]float32{0, 0, 12.5}})...)

	var p board.Parser
	for i := 0; i < len(stream); i += 5 { // serial reads arrive in arbitrary pieces
		p.Feed(stream[i:min(i+5, len(stream))], func(f board.Frame) {
			v, err := board.Decode(f) // f.Payload is valid only during this call
			if err != nil {
				fmt.Println("undecodable:", err)
				return
			}
			fmt.Printf("%s: %+v\n", board.FuncName(f.Func), v)
		})
	}
	fmt.Printf("%+v\n", p.Stats())
	// Output:
	// sys: {MilliVolts:7400}
	// imu: {Accel:[0 0 1] Gyro:[0 0 12.5]}
	// {Frames:2 BadChecksum:0 UnknownFunc:0 SkippedBytes:2}
}

// EncodeWheelRPS builds the frame the driver sends every tick. It refuses a non-finite or absurd speed, so
// the caller must decide what goes on the wire instead: normally the stop frame.
func ExampleEncodeWheelRPS() {
	frame, err := board.EncodeWheelRPS([4]float64{0.5, -0.5, 0.5, -0.5})
	fmt.Printf("% X %v\n", frame, err)

	_, err = board.EncodeWheelRPS([4]float64{0.5, math.NaN(), 0, 0})
	if errors.Is(err, board.ErrNonFinite) {
		frame = board.StopFrame()
	}
	fmt.Println(err)
	fmt.Printf("% X\n", frame)
	// Output:
	// AA 55 03 16 01 04 00 00 00 00 3F 01 00 00 00 BF 02 00 00 00 3F 03 00 00 00 BF 98 <nil>
	// board: non-finite value: motor 1 speed NaN
	// AA 55 03 16 01 04 00 00 00 00 00 01 00 00 00 00 02 00 00 00 00 03 00 00 00 00 07
}
