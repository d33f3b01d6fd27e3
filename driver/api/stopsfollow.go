package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// FollowStopHistory hands emit the stops recorded so far, then each new one, with no gap and no repeat.
//
// It subscribes to the driver's stops stream first, then calls backlog (the stop log, which the caller reads
// with driver/stoplog) and hands its records to emit in one call (live false). Then it hands emit each record
// of the stream in one call of its own (live true), except a record the backlog or the stream already had: one
// whose Seq is not above the highest Seq handed so far. A Seq of 0 (a stop not logged) is always handed.
//
// The backlog is handed even when the subscription fails (no driver); that error is returned after it. It
// returns ctx.Err() when ctx ends, the stream's error when the stream ends (the driver closed it, a line is
// not a stop record), and backlog's or emit's error as is.
func (c *Client) FollowStopHistory(ctx context.Context, backlog func() ([]StopRecord, error),
	emit func(recs []StopRecord, live bool) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	body, subErr := c.openFollow(ctx, TopicStops)
	if body != nil {
		defer body.Close()
	}
	recs, err := backlog()
	if err != nil {
		return err
	}
	var last uint64
	for _, r := range recs {
		last = max(last, r.Seq)
	}
	if err := emit(recs, false); err != nil {
		return err
	}
	if subErr != nil {
		return subErr
	}
	return scanLines(ctx, body, TopicStops, func(line []byte) error {
		var r StopRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("decode stop record: %w", err)
		}
		if r.Seq != 0 && r.Seq <= last {
			return nil
		}
		last = max(last, r.Seq)
		return emit([]StopRecord{r}, true)
	})
}

// openFollow opens GET /v1/<topic>?follow=1 and returns its body once the driver has answered: the driver
// subscribes before it answers, so every message it publishes from then on is in the body.
func (c *Client) openFollow(ctx context.Context, topic string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url("/v1/"+topic+"?follow=1"), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, c.wrapDial(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return nil, &HTTPError{Status: resp.StatusCode, Message: string(bytes.TrimSpace(b))}
	}
	return resp.Body, nil
}
