package boardtest_test

import (
	"fmt"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// A host on the in-memory board: the board reports its battery behind some line noise, the host answers
// with a wheel command and the stop frame, and the test reads back what the board was told.
func ExampleBoard() {
	b := boardtest.New(boardtest.Options{})
	defer b.Close()
	b.Emit([]byte{0xAA, 0x00}, board.EncodeBattery(board.Battery{MilliVolts: 11900}))

	// The host (the code under test) reads and writes b as its port.
	var p board.Parser
	buf := make([]byte, 64)
	n, _ := b.Read(buf)
	p.Feed(buf[:n], func(f board.Frame) {
		v, _ := board.Decode(f)
		fmt.Printf("host got %s %+v\n", board.FuncName(f.Func), v)
	})
	fwd, _ := board.EncodeWheelRPS([4]float64{0.5, 0.5, -0.5, -0.5})
	b.Write(fwd)
	b.Write(board.StopFrame())

	for _, r := range b.Received() {
		fmt.Println("board got", board.FuncName(r.Frame.Func), r.Wheels, "stop:", r.IsStop())
	}
	// Output:
	// host got sys {MilliVolts:11900}
	// board got motor [0.5 0.5 -0.5 -0.5] stop: false
	// board got motor [0 0 0 0] stop: true
}
