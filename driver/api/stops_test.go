package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func getRoute(t *testing.T, c *Client, route string) (int, string) {
	t.Helper()
	resp, err := c.hc.Get(url(route))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The stops topic is one of the server's topics: GET /v1/stops answers the last stop record (404 before the
// first), and FollowStops streams each one published, as rosorin-base stops --follow and the ROS 2 bridge's
// ~/stops read them.
func TestStopsTopic(t *testing.T) {
	if !slices.Contains(Topics, TopicStops) {
		t.Fatalf("Topics %v lacks %q", Topics, TopicStops)
	}
	s, _, c := newTestServer(t)
	if code, _ := getRoute(t, c, "/v1/stops"); code != http.StatusNotFound {
		t.Fatalf("GET /v1/stops before any stop: %d, want 404", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got := make(chan StopRecord, 1)
	go c.FollowStops(ctx, func(r StopRecord) error { got <- r; return errors.New("done") })
	waitFor(t, "stops follower", func() bool { return s.Stats().Subscribers == 1 })
	still := 0.31
	s.Publish(TopicStops, StopRecord{Seq: 7, Kind: StopEStop, StillS: &still, Confidence: ConfidenceOK})
	select {
	case r := <-got:
		if r.Seq != 7 || r.Kind != StopEStop || r.StillS == nil || *r.StillS != still {
			t.Fatalf("followed %+v", r)
		}
	case <-ctx.Done():
		t.Fatal("no stop record followed")
	}
	if code, body := getRoute(t, c, "/v1/stops"); code != http.StatusOK || !strings.Contains(body, `"seq":7`) {
		t.Fatalf("GET /v1/stops after a stop: %d %s", code, body)
	}
}
