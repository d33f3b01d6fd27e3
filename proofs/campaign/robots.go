package campaign

import (
	"errors"
	"io"
	"sync"
)

// StartRobots starts n robots at once, robot i by start(i), which also returns what tears it down (its target,
// its evidence log). When any start fails, every robot that did start is torn down and the errors are returned
// (nil robots). closeAll tears every robot down, all at once, and waits; it is idempotent.
func StartRobots(n int, start func(i int) (Robot, io.Closer, error)) (robots []Robot, closeAll func(), err error) {
	robots = make([]Robot, n)
	closers := make([]io.Closer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			robots[i], closers[i], errs[i] = start(i)
		}()
	}
	wg.Wait()
	var once sync.Once
	closeAll = func() {
		once.Do(func() {
			var cw sync.WaitGroup
			for _, c := range closers {
				if c == nil {
					continue
				}
				cw.Add(1)
				go func() { defer cw.Done(); c.Close() }()
			}
			cw.Wait()
		})
	}
	if err := errors.Join(errs...); err != nil {
		closeAll()
		return nil, nil, err
	}
	return robots, closeAll, nil
}

// Closers is several io.Closers closed in order as one (a robot's target, then its evidence log).
type Closers []io.Closer

// Close closes each, in order, and returns the first error.
func (cs Closers) Close() error {
	var first error
	for _, c := range cs {
		if c == nil {
			continue
		}
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
