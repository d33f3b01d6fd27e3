package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"
)

// TestLogTopic: the driver's records at INFO and above reach a follower of the log topic with their level,
// attributes and source position, the backlog first; DEBUG does not; the inner handler gets everything.
func TestLogTopic(t *testing.T) {
	s, _, c := newTestServer(t)
	var inner bytes.Buffer
	log, tee := TeeLog(slog.New(slog.NewTextHandler(&inner, &slog.HandlerOptions{Level: slog.LevelDebug})), "driver")
	log = log.With("pid", 7)
	log.Info("before the sink") // no sink yet: only the inner handler
	tee.SetSink(s.PublishLog)
	log.Warn("E-STOP latched", "reason", "estop topic (ROS 2)")
	log.Debug("not on the topic")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var got []LogRecord
	err := c.FollowLog(ctx, func(r LogRecord) error {
		got = append(got, r)
		if len(got) == 1 {
			log.WithGroup("g").Error("board silent", "age_s", 0.6)
		}
		if len(got) == 2 {
			return errors.New("done")
		}
		return nil
	})
	if err == nil || err.Error() != "done" {
		t.Fatalf("follow: %v (got %+v)", err, got)
	}
	if got[0].Level != slog.LevelWarn || got[0].Msg != `E-STOP latched pid=7 reason="estop topic (ROS 2)" proc=driver` {
		t.Errorf("backlog record %+v", got[0])
	}
	if !strings.HasSuffix(got[0].File, "log_test.go") || !strings.HasSuffix(got[0].Function, "TestLogTopic") || got[0].Line == 0 {
		t.Errorf("source position %q %q %d", got[0].File, got[0].Function, got[0].Line)
	}
	if got[1].Level != slog.LevelError || got[1].Msg != "board silent pid=7 g.age_s=0.6 proc=driver" {
		t.Errorf("live record %+v", got[1])
	}
	for _, want := range []string{"before the sink", "not on the topic", "E-STOP latched", "board silent"} {
		if !strings.Contains(inner.String(), want) {
			t.Errorf("inner handler lacks %q", want)
		}
	}
}

// TestLogNeverBlocks: a follower of the log topic that reads nothing costs the logging goroutine nothing
// but drops (counted); the backlog stays bounded.
func TestLogNeverBlocks(t *testing.T) {
	s, _, _ := newTestServer(t)
	log, tee := TeeLog(slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), "")
	tee.SetSink(s.PublishLog)
	conn, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/log?follow=1 HTTP/1.1\r\nHost: rosorin\r\n\r\n")
	waitFor(t, "log follower", func() bool { return s.Stats().Subscribers == 1 })
	t0 := time.Now()
	for i := range 20000 {
		log.Info("line", "i", i, "pad", strings.Repeat("x", 200))
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("20000 log lines with a stuck follower took %v", d)
	}
	if s.Stats().Dropped == 0 {
		t.Fatal("no drops counted for a log follower that reads nothing")
	}
	s.mu.Lock()
	n := len(s.logBacklog)
	s.mu.Unlock()
	if n != LogBacklog {
		t.Fatalf("backlog %d records, want %d", n, LogBacklog)
	}
}
