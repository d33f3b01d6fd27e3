package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
)

// The server's publish side: every output topic's subscribers and latest message (Publish), the one-shot
// GETs and the ?follow=1 streams that read them.

type subscriber struct {
	ch      chan any
	dropped atomic.Uint64
}

// Publish hands msg to every subscriber of topic without blocking; a full queue drops this message for that
// subscriber and counts it. The latest message per topic is kept for GET /v1/<topic>.
func (s *Server) Publish(topic string, msg any) {
	s.mu.Lock()
	s.latest[topic] = msg
	for sub := range s.subs[topic] {
		select {
		case sub.ch <- msg:
		default:
			sub.dropped.Add(1)
			s.dropped.Add(1)
		}
	}
	s.mu.Unlock()
}

func (s *Server) subscribe(topic string) *subscriber {
	sub := &subscriber{ch: make(chan any, SubscriberQueue)}
	s.mu.Lock()
	if s.subs[topic] == nil {
		s.subs[topic] = map[*subscriber]struct{}{}
	}
	s.subs[topic][sub] = struct{}{}
	s.mu.Unlock()
	return sub
}

func (s *Server) unsubscribe(topic string, sub *subscriber) {
	s.mu.Lock()
	delete(s.subs[topic], sub)
	s.mu.Unlock()
}

func (s *Server) latestMsg(topic string) (any, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.latest[topic]
	return m, ok
}

func isFollow(r *http.Request) bool {
	v := r.URL.Query().Get("follow")
	return v != "" && v != "0" && v != "false"
}

func (s *Server) getState(w http.ResponseWriter, r *http.Request) {
	if isFollow(r) {
		st, err := s.h.State()
		if err != nil {
			writeReply(w, http.StatusServiceUnavailable, Reply{Message: err.Error()})
			return
		}
		s.follow(w, r, TopicState, st)
		return
	}
	st, err := s.h.State()
	if err != nil {
		writeReply(w, http.StatusServiceUnavailable, Reply{Message: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) getTopic(w http.ResponseWriter, r *http.Request, topic string) {
	if isFollow(r) {
		s.follow(w, r, topic, nil)
		return
	}
	m, ok := s.latestMsg(topic)
	if !ok {
		writeReply(w, http.StatusNotFound, Reply{Message: fmt.Sprintf(
			"no %s message yet; ?follow=1 waits for them", topic)})
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// follow streams topic as JSON lines, flushed per message, until the client goes or the server closes. first,
// if not nil, goes out before the stream (the current state for state followers).
func (s *Server) follow(w http.ResponseWriter, r *http.Request, topic string, first any) {
	var sub *subscriber
	var backlog []LogRecord
	if topic == TopicLog {
		sub, backlog = s.subscribeLog()
	} else {
		sub = s.subscribe(topic)
	}
	defer s.unsubscribe(topic, sub)
	if first == nil && topic == TopicSource {
		// Latched: who drives now (read after subscribing, so no hand-over falls between), then every hand-over.
		if m, ok := s.latestMsg(topic); ok {
			first = m
		}
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	send := func(m any) bool {
		_ = rc.SetWriteDeadline(s.now().Add(WriteTimeout))
		if err := enc.Encode(m); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if first != nil && !send(first) {
		return
	}
	for _, m := range backlog {
		if !send(m) {
			return
		}
	}
	if first == nil {
		rc.Flush()
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case m := <-sub.ch:
			if !send(m) {
				s.log.Debug("follower gone", "topic", topic, "peer", PeerFrom(r).String(), "dropped", sub.dropped.Load())
				return
			}
		}
	}
}
