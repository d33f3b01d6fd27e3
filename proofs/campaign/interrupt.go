package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Interrupts is a campaign's two-stage interrupt: the first signal stops the taking of runs (take ends) and
// lets the runs in progress finish; the second abandons them (run ends: the wheels are disabled, the run is
// recorded CUT). Each stage is said on out. Stop releases the signals and both contexts; call it when the
// campaign is over.
type Interrupts struct {
	Take, Run context.Context
	stop      func()
}

// Stop ends the watch and both contexts. Idempotent.
func (i *Interrupts) Stop() { i.stop() }

// NotifyInterrupts watches SIGINT and SIGTERM (Ctrl-C, systemctl stop, a CI job's cancel).
func NotifyInterrupts(out io.Writer) *Interrupts {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	in := WatchInterrupts(sigs, out)
	stop := in.stop
	in.stop = func() { signal.Stop(sigs); stop() }
	return in
}

// WatchInterrupts is NotifyInterrupts on a given channel of signals (tests send their own).
func WatchInterrupts(sigs <-chan os.Signal, out io.Writer) *Interrupts {
	take, stopTaking := context.WithCancel(context.Background())
	run, abandon := context.WithCancel(context.Background())
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		n := 0
		for {
			select {
			case <-done:
				return
			case <-sigs:
			}
			n++
			if n == 1 {
				fmt.Fprintln(out, "\ninterrupt: finishing the run(s) in progress, then stopping (Ctrl-C again abandons them: the wheels are disabled, the run is recorded CUT)")
				stopTaking()
				continue
			}
			fmt.Fprintln(out, "\ninterrupt: abandoning the run(s) in progress")
			abandon()
			return
		}
	}()
	var once bool
	return &Interrupts{Take: take, Run: run, stop: func() {
		if once {
			return
		}
		once = true
		close(done)
		<-ended
		stopTaking()
		abandon()
	}}
}
