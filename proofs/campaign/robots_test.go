package campaign

import (
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

type closeCount struct{ n *atomic.Int32 }

func (c closeCount) Close() error { c.n.Add(1); return nil }

// TestStartRobots: all robots start at once; a failed start tears down the ones that started and returns the
// error; closeAll closes each once, however often it is called.
func TestStartRobots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var closed atomic.Int32
		robots, closeAll, err := StartRobots(3, func(i int) (Robot, io.Closer, error) {
			return nil, Closers{closeCount{&closed}, closeCount{&closed}}, nil
		})
		if err != nil || len(robots) != 3 {
			t.Fatalf("%d robots, %v", len(robots), err)
		}
		closeAll()
		closeAll()
		if n := closed.Load(); n != 6 {
			t.Errorf("%d closes, want 6 (two closers of three robots, once)", n)
		}
		closed.Store(0)
		boom := errors.New("robot 2 did not start")
		robots, closeAll, err = StartRobots(3, func(i int) (Robot, io.Closer, error) {
			if i == 1 {
				return nil, nil, boom
			}
			return nil, closeCount{&closed}, nil
		})
		if !errors.Is(err, boom) || robots != nil || closeAll != nil {
			t.Fatalf("failed start: %v, %v", robots, err)
		}
		if n := closed.Load(); n != 2 {
			t.Errorf("%d robots torn down after the failure, want the 2 that started", n)
		}
	})
}
