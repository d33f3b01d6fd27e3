package api

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// TopicLog carries the driver's log records at INFO and above (LogRecord), for the ROS 2 bridge's /rosout.
// A follower gets the last LogBacklog records first (what was said before it connected: the e-stop latched
// at start), then every new one; a slow follower loses records (counted in link.dropped_msgs), never the
// driver's loop.
const TopicLog = "log"

// LogBacklog is how many recent log records the driver keeps for a new follower of TopicLog.
const LogBacklog = 64

// LogRecord is one log line: its time, slog level, message with its attributes rendered as key=value
// pairs, and the source position of the call.
type LogRecord struct {
	Stamp    time.Time  `json:"stamp"`
	Level    slog.Level `json:"level"`
	Msg      string     `json:"msg"`
	File     string     `json:"file,omitempty"`
	Function string     `json:"function,omitempty"`
	Line     int        `json:"line,omitempty"`
}

// LogTee is a slog.Handler that passes every record to an inner handler and, at Min and above, hands a
// LogRecord to a sink set later (SetSink; none: nothing). The sink is called on the logging goroutine and must
// not block (Server.Publish, a bounded channel).
type LogTee struct {
	inner slog.Handler
	min   slog.Level
	sink  *atomic.Pointer[func(LogRecord)]
	text  *attrText
	proc  string
}

// attrText renders a record's attributes (the With attributes and groups included) as slog's text handler
// does, without time, level and message.
type attrText struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
	h   slog.Handler
}

// NewLogTee wraps inner; proc (the process's role: "driver", "supervisor", "ros2"), if set, ends every
// record's message as "proc=<role>", as in the journal's lines.
func NewLogTee(inner slog.Handler, min slog.Level, proc string) *LogTee {
	buf := &bytes.Buffer{}
	h := slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
			return slog.Attr{}
		}
		return a
	}})
	return &LogTee{inner: inner, min: min, sink: &atomic.Pointer[func(LogRecord)]{}, text: &attrText{mu: &sync.Mutex{}, buf: buf, h: h}, proc: proc}
}

// SetSink sets (nil: removes) the sink of this tee and of every handler derived from it.
func (t *LogTee) SetSink(fn func(LogRecord)) {
	if fn == nil {
		t.sink.Store(nil)
		return
	}
	t.sink.Store(&fn)
}

func (t *LogTee) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= t.min || t.inner.Enabled(ctx, l)
}

func (t *LogTee) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if t.inner.Enabled(ctx, r.Level) {
		err = t.inner.Handle(ctx, r)
	}
	fn := t.sink.Load()
	if fn == nil || r.Level < t.min {
		return err
	}
	rec := LogRecord{Stamp: r.Time, Level: r.Level, Msg: r.Message}
	t.text.mu.Lock()
	t.text.buf.Reset()
	_ = t.text.h.Handle(ctx, r)
	if a := bytes.TrimSpace(t.text.buf.Bytes()); len(a) > 0 {
		rec.Msg += " " + string(a)
	}
	t.text.mu.Unlock()
	if t.proc != "" {
		rec.Msg += " proc=" + t.proc
	}
	if r.PC != 0 {
		f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
		rec.File, rec.Function, rec.Line = f.File, f.Function, f.Line
	}
	(*fn)(rec)
	return err
}

func (t *LogTee) WithAttrs(as []slog.Attr) slog.Handler {
	c := *t
	c.inner = t.inner.WithAttrs(as)
	c.text = &attrText{mu: t.text.mu, buf: t.text.buf, h: t.text.h.WithAttrs(as)}
	return &c
}

func (t *LogTee) WithGroup(name string) slog.Handler {
	c := *t
	c.inner = t.inner.WithGroup(name)
	c.text = &attrText{mu: t.text.mu, buf: t.text.buf, h: t.text.h.WithGroup(name)}
	return &c
}

// TeeLog returns log with a LogTee at INFO and above in front of its handler, and the tee.
func TeeLog(log *slog.Logger, proc string) (*slog.Logger, *LogTee) {
	t := NewLogTee(log.Handler(), slog.LevelInfo, proc)
	return slog.New(t), t
}

// PublishLog publishes rec on TopicLog and keeps it in the backlog (LogTee's sink for the driver).
func (s *Server) PublishLog(rec LogRecord) {
	s.mu.Lock()
	if len(s.logBacklog) >= LogBacklog {
		copy(s.logBacklog, s.logBacklog[1:])
		s.logBacklog = s.logBacklog[:LogBacklog-1]
	}
	s.logBacklog = append(s.logBacklog, rec)
	s.mu.Unlock()
	s.Publish(TopicLog, rec)
}

// subscribeLog subscribes to TopicLog and returns the backlog at that moment (under one lock: no record is
// both in it and queued, none is in neither).
func (s *Server) subscribeLog() (*subscriber, []LogRecord) {
	sub := &subscriber{ch: make(chan any, SubscriberQueue)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs[TopicLog] == nil {
		s.subs[TopicLog] = map[*subscriber]struct{}{}
	}
	s.subs[TopicLog][sub] = struct{}{}
	return sub, append([]LogRecord(nil), s.logBacklog...)
}

// FollowLog follows TopicLog.
func (c *Client) FollowLog(ctx context.Context, fn func(LogRecord) error) error {
	return followJSON(ctx, c, TopicLog, "log record", fn)
}
