package api

import (
	"context"
	"io"
	"net/http"
)

// StopsAcker is an optional ability of a Handler (found by type assertion): a person's acknowledgement of the
// stop-performance monitor's ERROR (POST /v1/stops/ack), which ends its hold on enable (issue 35). The
// route needs the safety role, as resetting the e-stop does: both let the wheels turn again after the driver
// refused them for a reason a person must look at.
type StopsAcker interface {
	StopsAck(p Peer) Reply
}

func (s *Server) postStopsAck(w http.ResponseWriter, r *http.Request) {
	a, ok := s.h.(StopsAcker)
	if !ok {
		writeReply(w, http.StatusNotFound, Reply{Message: "this driver has no stop monitor"})
		return
	}
	if !s.allow(w) {
		return
	}
	io.Copy(io.Discard, io.LimitReader(r.Body, MaxBody))
	writeReply(w, http.StatusOK, a.StopsAck(PeerFrom(r)))
}

// StopsAck acknowledges the stop monitor's ERROR (the safety role): enable is no longer refused for it.
func (c *Client) StopsAck(ctx context.Context) (Reply, error) {
	var r Reply
	err := c.do(ctx, http.MethodPost, "/v1/stops/ack", nil, &r)
	return r, err
}
