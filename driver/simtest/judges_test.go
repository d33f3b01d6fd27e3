// Negative controls: the judges of this package must be able to say FAIL.

package simtest_test

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/rosorin/rosorin/driver/api"
	"github.com/rosorin/rosorin/driver/standtest"
	"github.com/rosorin/rosorin/protocol/board"
	"github.com/rosorin/rosorin/sim"
)

// motorRx builds a received set-many frame with arbitrary ids and speeds, bypassing the encoder's checks
// (which refuse exactly what the judge must catch).
func motorRx(ids [4]uint8, rps [4]float32) sim.Received {
	p := []byte{0x01, 4}
	for i := range ids {
		p = append(p, ids[i])
		p = binary.LittleEndian.AppendUint32(p, math.Float32bits(rps[i]))
	}
	return sim.Received{Func: board.FuncMotor, Payload: p}
}

func TestJudgeFramesNegativeControl(t *testing.T) {
	const bound = 1.5
	ids := [4]uint8{0, 1, 2, 3}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	good := motorRx(ids, [4]float32{1, 1, -1, -1})
	cases := []struct {
		name string
		rx   sim.Received
	}{
		{"NaN", motorRx(ids, [4]float32{nan, nan, -nan, -nan})},
		{"+Inf", motorRx(ids, [4]float32{1, inf, -1, -1})},
		{"over the bound", motorRx(ids, [4]float32{1.6, 1.6, -1.6, -1.6})},
		{"ids swapped", motorRx([4]uint8{1, 0, 2, 3}, [4]float32{1, 1, -1, -1})},
		{"not a motor frame", sim.Received{Func: board.FuncBuzzer, Payload: []byte{1, 2, 3, 4, 5, 6, 7, 8}}},
		{"set-one frame", func() sim.Received {
			b, _ := board.EncodeMotorSingle(0, 1)
			return sim.Received{Func: board.FuncMotor, Payload: b[4 : len(b)-1]}
		}()},
	}
	for _, c := range cases {
		rep, bad := checkFrames([]sim.Received{good, c.rx}, bound, nil)
		if len(bad) != 1 || rep.n != 2 {
			t.Errorf("%s: judge found %d bad frames of 2 (%v), want 1", c.name, len(bad), bad)
		}
	}
	stop := sim.Received{Func: board.FuncMotor, Payload: board.StopFrame()[4 : len(board.StopFrame())-1]}
	if rep, bad := checkFrames([]sim.Received{good, stop}, bound, nil); len(bad) != 0 || rep.stops != 1 || rep.moving != 1 {
		t.Errorf("good and stop frames: %+v %v", rep, bad)
	}
	// The transit excuse holds only for frames that lost the forward shape: a driver that sent NaN in the
	// forward shape is still caught inside a corruption window.
	inWindow := func(r sim.Received) bool { return !forwardShape(r) }
	if _, bad := checkFrames([]sim.Received{cases[0].rx}, bound, inWindow); len(bad) != 1 {
		t.Errorf("a forward-shaped NaN frame was excused as damage in transit")
	}
	damaged := motorRx(ids, [4]float32{1, 1, -1, -1})
	damaged.Payload[6] ^= 0x40 // one bit of motor 1's exponent: 1.0 (0x3f800000) becomes +Inf (0x7f800000)
	rep, bad := checkFrames([]sim.Received{damaged}, bound, inWindow)
	if len(bad) != 0 || rep.transit != 1 {
		t.Errorf("a frame damaged in one byte: transit %d, bad %v; want it counted as transit damage", rep.transit, bad)
	}
	if _, bad := checkFrames([]sim.Received{damaged}, bound, nil); len(bad) != 1 {
		t.Errorf("the same damaged frame outside a window was not flagged")
	}
}

// TestJudgeWheelsNegativeControl: with the board ignoring motor frames (sim.IgnoreMotor) the e-stop's stop
// frame arrives, but the truth judge "wheels stopped" must say no; the stop-frame detector must see no stop
// while commands keep coming; both say yes once the board obeys again.
func TestJudgeWheelsNegativeControl(t *testing.T) {
	s := sharedStack(t)
	defer s.sim.IgnoreMotor(false)
	s.mustEnable(t)
	p := s.publish(t, api.Twist{VX: 0.2})
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.Turning)); !ok {
		t.Fatalf("wheels not turning: %v", tr.WheelRPS)
	}
	seq := s.sim.RxSeq()
	if _, _, ok := s.waitRx(seq, 500*time.Millisecond, isStop); ok {
		t.Fatal("stop-frame detector fired while commands keep coming and nothing stops them")
	}
	if err := s.sim.IgnoreMotor(true); err != nil {
		t.Fatal(err)
	}
	seq = s.sim.RxSeq()
	t0 := time.Now()
	s.estop(t, "negative control")
	if _, _, ok := s.waitRx(seq, time.Second, stopAfter(t0)); !ok {
		t.Fatal("no stop frame after the e-stop")
	}
	if tr, ok := s.waitTruth(time.Second, judge(standtest.WheelsStopped)); ok {
		t.Fatalf("truth judge said the wheels stopped while the board ignored the stop frame: %v", tr.WheelRPS)
	}
	if err := s.sim.IgnoreMotor(false); err != nil {
		t.Fatal(err)
	}
	// The next frame (the driver's 0.2 s refresh of the zero command) is obeyed.
	if tr, ok := s.waitTruth(3*time.Second, judge(standtest.WheelsStopped)); !ok {
		t.Errorf("wheels not stopped once the board obeys again: %v", tr.WheelRPS)
	}
	p.Halt()
}
