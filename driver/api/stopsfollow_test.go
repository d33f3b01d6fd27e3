package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FollowStopHistory against a real control socket (Listen), on which the test publishes stops as the driver
// does, and against plain HTTP servers on a unix socket for the streams the driver ends badly.

// handed records emit's calls as "log 1 2 3" and "live 4", one string per call.
type handed struct {
	calls []string
	recs  []StopRecord // every record handed, in order
}

func (h *handed) emit(recs []StopRecord, live bool) {
	s := "log"
	if live {
		s = "live"
	}
	for _, r := range recs {
		s += " " + strconv.FormatUint(r.Seq, 10)
	}
	h.calls = append(h.calls, s)
	h.recs = append(h.recs, recs...)
}

func (h *handed) want(t *testing.T, want ...string) {
	t.Helper()
	if !slices.Equal(h.calls, want) {
		t.Errorf("emit calls %q, want %q", h.calls, want)
	}
}

func stopSeqs(seqs ...uint64) []StopRecord {
	var recs []StopRecord
	for _, s := range seqs {
		recs = append(recs, StopRecord{Seq: s, Kind: StopEStop})
	}
	return recs
}

// Two stops timed while the log is read: the one the log already has is handed once (from the log), the one
// it does not yet have once (from the stream). The stream is subscribed before the log is read.
func TestFollowStopHistoryNoGapNoRepeat(t *testing.T) {
	s, _, c := newTestServer(t)
	limit, stopLimit := context.WithTimeout(context.Background(), 10*time.Second)
	defer stopLimit()
	ctx, cancel := context.WithCancel(limit)
	defer cancel()
	var h handed
	err := c.FollowStopHistory(ctx, func() ([]StopRecord, error) {
		if n := s.Stats().Subscribers; n != 1 {
			t.Errorf("the log was read with %d subscribers, want 1 (subscribed first)", n)
		}
		s.Publish(TopicStops, StopRecord{Seq: 3, Kind: StopEStop})
		s.Publish(TopicStops, StopRecord{Seq: 4, Kind: StopDeadman})
		return stopSeqs(1, 2, 3), nil // the log as read: 3 written, 4 not yet
	}, func(recs []StopRecord, live bool) error {
		h.emit(recs, live)
		if live && recs[0].Seq == 4 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ended with %v, want context.Canceled (stop 4 handed)", err)
	}
	h.want(t, "log 1 2 3", "live 4")
}

// The log's records in one call, then each new stream record in one call of its own, in order; repeats (a
// seq not above the last handed) are dropped, a stop not logged (seq 0) is always handed, and the records
// come through whole.
func TestFollowStopHistoryOrder(t *testing.T) {
	s, _, c := newTestServer(t)
	limit, stopLimit := context.WithTimeout(context.Background(), 10*time.Second)
	defer stopLimit()
	ctx, cancel := context.WithCancel(limit)
	defer cancel()
	still := 0.31
	var h handed
	err := c.FollowStopHistory(ctx, func() ([]StopRecord, error) { return stopSeqs(1, 2), nil },
		func(recs []StopRecord, live bool) error {
			h.emit(recs, live)
			if !live {
				for _, seq := range []uint64{2, 3, 0, 3, 1, 5} {
					s.Publish(TopicStops, StopRecord{Seq: seq, Kind: StopEStop, Reason: fmt.Sprint("live ", seq), StillS: &still})
				}
			}
			if live && recs[0].Seq == 5 {
				cancel()
			}
			return nil
		})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ended with %v, want context.Canceled (stop 5 handed)", err)
	}
	h.want(t, "log 1 2", "live 3", "live 0", "live 5")
	if len(h.recs) == 5 {
		if r := h.recs[2]; r.Reason != "live 3" || r.Kind != StopEStop || r.StillS == nil || *r.StillS != still {
			t.Errorf("live record handed as %+v", r)
		}
	}
}

// Cancelling ctx while the stream is quiet ends it with context.Canceled; a ctx already done still hands the
// log, then says so.
func TestFollowStopHistoryCancel(t *testing.T) {
	_, _, c := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logHanded := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- c.FollowStopHistory(ctx, func() ([]StopRecord, error) { return stopSeqs(1), nil },
			func(recs []StopRecord, live bool) error {
				if !live {
					close(logHanded)
				}
				return nil
			})
	}()
	select {
	case <-logHanded:
	case err := <-done:
		t.Fatalf("ended with %v before any stop", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the log was never handed")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled: ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end it")
	}

	var h handed
	err := c.FollowStopHistory(ctx, func() ([]StopRecord, error) { return stopSeqs(1), nil },
		func(recs []StopRecord, live bool) error { h.emit(recs, live); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("ctx done before: ended with %v, want context.Canceled", err)
	}
	h.want(t, "log 1")
}

// unixHTTP serves h on a unix socket of its own and returns a client of it.
func unixHTTP(t *testing.T, h http.HandlerFunc) *Client {
	t.Helper()
	path := filepath.Join(shortDir(t), "base.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	c := NewClient(path)
	t.Cleanup(c.CloseIdle)
	return c
}

// A stream that ends, or never opens, ends it with the stream's error, after the log (and what the stream
// handed before).
func TestFollowStopHistoryStreamEnds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	logOne := func() ([]StopRecord, error) { return stopSeqs(1), nil }

	t.Run("driver closes", func(t *testing.T) {
		s, _, c := newTestServer(t)
		var h handed
		err := c.FollowStopHistory(ctx, logOne, func(recs []StopRecord, live bool) error {
			h.emit(recs, live)
			if !live {
				s.Publish(TopicStops, StopRecord{Seq: 2})
			} else {
				s.Close()
			}
			return nil
		})
		if err == nil || ctx.Err() != nil || !strings.HasPrefix(err.Error(), "stops stream: ") {
			t.Errorf("ended with %v, want the stops stream's end", err)
		}
		h.want(t, "log 1", "live 2")
	})
	t.Run("stream ends", func(t *testing.T) {
		c := unixHTTP(t, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintln(w, `{"seq":2,"kind":"estop"}`)
		})
		var h handed
		err := c.FollowStopHistory(ctx, logOne, func(recs []StopRecord, live bool) error { h.emit(recs, live); return nil })
		if err == nil || err.Error() != "stops stream: the driver closed it" {
			t.Errorf("ended with %v, want the driver closed it", err)
		}
		h.want(t, "log 1", "live 2")
	})
	t.Run("not a stop record", func(t *testing.T) {
		c := unixHTTP(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/stops" || r.URL.Query().Get("follow") != "1" {
				http.NotFound(w, r)
				return
			}
			fmt.Fprintln(w, `{"seq":2,"kind":"estop"}`)
			fmt.Fprintln(w, `{"seq":3,"kind":`)
			fmt.Fprintln(w, `{"seq":4,"kind":"estop"}`)
		})
		var h handed
		err := c.FollowStopHistory(ctx, logOne, func(recs []StopRecord, live bool) error { h.emit(recs, live); return nil })
		if err == nil || !strings.Contains(err.Error(), "decode stop record") {
			t.Errorf("ended with %v, want a decode error", err)
		}
		h.want(t, "log 1", "live 2")
	})
	t.Run("refused", func(t *testing.T) {
		c := unixHTTP(t, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "too many followers", http.StatusServiceUnavailable)
		})
		var h handed
		err := c.FollowStopHistory(ctx, logOne, func(recs []StopRecord, live bool) error { h.emit(recs, live); return nil })
		var he *HTTPError
		if !errors.As(err, &he) || he.Status != http.StatusServiceUnavailable || he.Message != "too many followers" {
			t.Errorf("ended with %v, want the 503", err)
		}
		h.want(t, "log 1")
	})
	t.Run("no driver", func(t *testing.T) {
		c := NewClient(filepath.Join(shortDir(t), "none.sock"))
		var h handed
		err := c.FollowStopHistory(ctx, logOne, func(recs []StopRecord, live bool) error { h.emit(recs, live); return nil })
		if !errors.Is(err, ErrNoDriver) {
			t.Errorf("ended with %v, want ErrNoDriver", err)
		}
		h.want(t, "log 1")
	})
}

// A log that cannot be read, or an emit that fails, ends it with that error as is.
func TestFollowStopHistoryCallbackErrors(t *testing.T) {
	s, _, c := newTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errBroken := errors.New("stop log broken")
	var h handed
	err := c.FollowStopHistory(ctx, func() ([]StopRecord, error) { return stopSeqs(1), errBroken },
		func(recs []StopRecord, live bool) error { h.emit(recs, live); return nil })
	if err != errBroken {
		t.Errorf("broken log: ended with %v, want %v", err, errBroken)
	}
	h.want(t)

	errFull := errors.New("disk full")
	h = handed{}
	err = c.FollowStopHistory(ctx, func() ([]StopRecord, error) { return stopSeqs(1), nil },
		func(recs []StopRecord, live bool) error { h.emit(recs, live); return errFull })
	if err != errFull {
		t.Errorf("failing emit of the log: ended with %v, want %v", err, errFull)
	}
	h.want(t, "log 1")

	h = handed{}
	err = c.FollowStopHistory(ctx, func() ([]StopRecord, error) { return stopSeqs(1), nil },
		func(recs []StopRecord, live bool) error {
			h.emit(recs, live)
			if !live {
				s.Publish(TopicStops, StopRecord{Seq: 2})
				return nil
			}
			return errFull
		})
	if err != errFull {
		t.Errorf("failing emit of a live stop: ended with %v, want %v", err, errFull)
	}
	h.want(t, "log 1", "live 2")
}
