package standtest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rosorin/rosorin/clock"
	"github.com/rosorin/rosorin/driver/api"
)

// Publisher: a velocity publisher on the control socket at a steady rate, as a ROS node or a teleop publishes.

// Publisher sends one twist at 20 Hz over one cmd_vel stream (one publisher) until silenced or closed.
type Publisher struct {
	st     *api.CmdVelStream
	clk    clock.Full // clock.Real{}
	mu     sync.Mutex // held during each send, so Silence returns after any send in flight
	tw     api.Twist
	paused bool
	start  time.Time // when the last send began
	last   time.Time // when the last send returned
	sent   int
	err    error
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	res    api.StreamResult
	resErr error
}

// Publish starts a publisher on cl (the cmd_vel input); it is halted when the test ends.
func Publish(t testing.TB, cl *api.Client, tw api.Twist) *Publisher {
	t.Helper()
	return PublishOn(t, cl, "", tw)
}

// PublishOn starts a publisher on input in ("manual", "autonomous", "cmd_vel"; "" is cmd_vel).
func PublishOn(t testing.TB, cl *api.Client, in string, tw api.Twist) *Publisher {
	t.Helper()
	st, err := cl.StreamCmdVelOn(context.Background(), in)
	if err != nil {
		t.Fatalf("cmd_vel stream on %q: %v", in, err)
	}
	p := &Publisher{st: st, clk: clock.Real{}, tw: tw, stop: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	t.Cleanup(func() { p.Halt() })
	return p
}

func (p *Publisher) run() {
	defer close(p.done)
	tk := p.clk.NewTicker(50 * time.Millisecond)
	defer tk.Stop()
	for {
		p.mu.Lock()
		if !p.paused {
			p.start = p.clk.Now()
			if err := p.st.Send(p.tw); err != nil {
				p.err = err
				p.mu.Unlock()
				return
			}
			p.last = p.clk.Now()
			p.sent++
		}
		p.mu.Unlock()
		select {
		case <-p.stop:
			return
		case <-tk.C():
		}
	}
}

// Set changes the twist (and resumes a silenced publisher).
func (p *Publisher) Set(tw api.Twist) {
	p.mu.Lock()
	p.tw, p.paused = tw, false
	p.mu.Unlock()
}

// Silence stops sending (the stream stays open) and returns when the last command was sent.
func (p *Publisher) Silence() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = true
	return p.last
}

// LastStart is when the last command's send began: no command can have reached the driver before it, so a
// time measured from it bounds the driver's from above.
func (p *Publisher) LastStart() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.start
}

// Close stops sending, closes the stream and returns when the last command was sent. Idempotent.
func (p *Publisher) Close() time.Time {
	p.Halt()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// Count is the number of commands sent so far; Failed the send error that ended the publisher, if any.
func (p *Publisher) Count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent
}

func (p *Publisher) Failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Halt stops the publisher and closes its stream; it returns the driver's counts. Idempotent.
func (p *Publisher) Halt() (api.StreamResult, error) {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.res, p.resErr = p.st.Close()
	})
	return p.res, p.resErr
}
