package boardtest_test

import (
	"fmt"
	"io"

	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/protocol/board/boardtest"
)

// A board that reports a key press, expects the host's stop frame and answers with its battery. In a test, set
// T so that a wrong byte fails the test with its offset.
func ExamplePlayback() {
	key := boardtest.Frame(board.FuncKey, []byte{1, 1})
	p := &boardtest.Playback{Ops: []boardtest.Op{
		{R: key},
		{W: board.StopFrame(), R: board.EncodeBattery(board.Battery{MilliVolts: 11900})},
	}}
	var parser board.Parser
	buf := make([]byte, 64)
	for range 2 {
		n, _ := p.Read(buf)
		parser.Feed(buf[:n], func(f board.Frame) {
			v, _ := board.Decode(f)
			fmt.Printf("%s %+v\n", board.FuncName(f.Func), v)
			if f.Func == board.FuncKey {
				p.Write(board.StopFrame())
			}
		})
	}
	fmt.Println(p.Close(), p.Written())
	_, err := p.Read(buf)
	fmt.Println(err == io.EOF)
	// Output:
	// key {ID:1 Event:1}
	// sys {MilliVolts:11900}
	// <nil> 27
	// true
}
