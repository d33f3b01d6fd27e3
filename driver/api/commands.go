package api

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/rosorin/rosorin/driver/motion"
	"golang.org/x/time/rate"
)

// The requests that act on the driver: velocity commands (one-shot and streams), e-stop, enable, reset, scans,
// and GET /v1/config.

func (s *Server) getConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.h.Config())
}

// isStream: a body without a declared length (chunked) is a stream of JSON lines; a body with a length is one
// message. `curl -d` sends one message, `curl -T -` and the Go client's streams send chunked bodies.
func isStream(r *http.Request) bool { return r.ContentLength < 0 }

// InputParam is the query parameter that names a velocity command's input: POST /v1/cmd_vel?input=manual
// (manual, autonomous or cmd_vel; none is cmd_vel).
const InputParam = "input"

// cmdInput returns the request's input. An unknown name is answered 400 and changes nothing: it never
// reaches the driver, and no motor frame follows from it.
func (s *Server) cmdInput(w http.ResponseWriter, r *http.Request) (motion.Input, bool) {
	in, err := motion.ParseInput(r.URL.Query().Get(InputParam))
	if err != nil {
		s.badRequests.Add(1)
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error() + "; nothing was changed"})
		return 0, false
	}
	return in, true
}

func (s *Server) postCmdVel(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	in, ok := s.cmdInput(w, r)
	if !ok {
		return
	}
	if isStream(r) {
		s.cmdStream(w, r, p, in)
		return
	}
	if !s.allow(w) {
		return
	}
	b, ok := readBody(w, r)
	if !ok {
		s.h.BadCommand(p, in, "oversize or unreadable cmd_vel body")
		return
	}
	t, err := ParseTwist(b)
	if err != nil {
		s.h.BadCommand(p, in, err.Error())
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error() + "; the wheels were stopped"})
		return
	}
	rep, err := s.h.CmdVel(p, in, t, false)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, CmdReply{Message: err.Error(), Blocked: rep.Blocked})
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// cmdStream reads one long-lived publisher's JSON lines on input in. The stream counts as a publisher on in
// while open.
func (s *Server) cmdStream(w http.ResponseWriter, r *http.Request, p Peer, in motion.Input) {
	s.h.CmdStream(p, in, true)
	defer s.h.CmdStream(p, in, false)
	var res StreamResult
	lim := rate.NewLimiter(StreamCmdRate, StreamCmdBurst)
	tooLong := func() string {
		s.h.BadCommand(p, in, "cmd_vel stream line too long")
		return fmt.Sprintf("line over %d bytes; the wheels were stopped and the stream closed", MaxCmdLine)
	}
	streamLines(w, r.Body, MaxCmdLine, &res, tooLong, func(line []byte) bool {
		if !lim.Allow() {
			res.Dropped++
			if res.Dropped >= StreamFloodLimit {
				res.Message = fmt.Sprintf("flood: over %.0f commands/s; publish at 10-50 Hz", StreamCmdRate)
				writeJSON(w, http.StatusTooManyRequests, res)
				return false
			}
			return true
		}
		t, perr := ParseTwist(bytes.TrimSpace(line))
		if perr != nil {
			s.h.BadCommand(p, in, perr.Error())
			res.Message = perr.Error() + "; the wheels were stopped and the stream closed"
			writeJSON(w, http.StatusBadRequest, res)
			return false
		}
		if _, cerr := s.h.CmdVel(p, in, t, true); cerr != nil {
			res.Rejected++
			res.Message = cerr.Error()
		} else {
			res.Accepted++
		}
		return true
	})
}

// streamLines reads a stream's JSON lines of at most maxLine bytes and hands each non-blank one to line, which
// returns false when it has answered and the stream ends. A line over maxLine is answered 413 with
// tooLong's message; the end of the body is answered 200 with res; any other read error means the client is
// gone (or the server closes), and nobody is left to answer.
func streamLines(w http.ResponseWriter, body io.Reader, maxLine int, res *StreamResult, tooLong func() string, line func([]byte) bool) {
	br := bufio.NewReaderSize(body, maxLine)
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			res.Message = tooLong()
			writeJSON(w, http.StatusRequestEntityTooLarge, res)
			return
		}
		if len(bytes.TrimSpace(b)) > 0 && !line(b) {
			return
		}
		if err != nil {
			if err == io.EOF {
				res.Success = true
				if res.Message == "" {
					res.Message = "stream ended"
				}
				writeJSON(w, http.StatusOK, res)
			}
			return
		}
	}
}

type estopBody struct {
	Data   *bool  `json:"data"`
	Reason string `json:"reason"`
}

func (s *Server) postEStop(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	// No role, no rate limit and no body requirement: an e-stop is never refused. A broken, oversize or slow
	// body still latches it, and so does an e-stop beyond MaxSafetyActive, unread.
	var body estopBody
	if overSafetyCap(r) {
		body.Reason = fmt.Sprintf("body not read: over %d e-stop and enable requests open", MaxSafetyActive)
		w.Header().Set("Connection", "close")
	} else {
		_ = http.NewResponseController(w).SetReadDeadline(s.now().Add(SafetyBodyTimeout))
		b, err := io.ReadAll(io.LimitReader(r.Body, MaxSafetyBody))
		switch {
		case err != nil:
			body.Reason = "estop request body unreadable: " + err.Error()
			w.Header().Set("Connection", "close")
		case len(bytes.TrimSpace(b)) > 0:
			if err := strictUnmarshal(b, &body); err != nil {
				body = estopBody{Reason: "unreadable estop request body"}
			}
		}
	}
	if body.Data != nil && !*body.Data {
		writeReply(w, http.StatusOK, Reply{Success: true, Message: "estop data false: nothing done (reset clears a latch)"})
		return
	}
	rep := s.h.EStop(p, body.Reason)
	code := http.StatusOK
	if !rep.Success {
		// Not latched (the control loop did not answer): never a 200, so no client takes it for a stop.
		code = http.StatusServiceUnavailable
	}
	writeReply(w, code, rep)
}

func (s *Server) postEnable(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	if overSafetyCap(r) {
		refuse(w, http.StatusServiceUnavailable, Reply{Message: fmt.Sprintf(
			"too many e-stop and enable requests open (%d); retry (an e-stop is always served)", MaxSafetyActive)})
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(s.now().Add(SafetyBodyTimeout))
	b, ok := readBodyUpTo(w, r, MaxSafetyBody)
	if !ok {
		return
	}
	on, err := ParseBool(b)
	if err != nil {
		writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
		return
	}
	// Disabling is never rate limited: like the e-stop, a stop request always goes through.
	if on && !s.allow(w) {
		return
	}
	writeReply(w, http.StatusOK, s.h.Enable(p, on))
}

func (s *Server) postReset(w http.ResponseWriter, r *http.Request) {
	if !s.allow(w) {
		return
	}
	io.Copy(io.Discard, io.LimitReader(r.Body, MaxBody))
	writeReply(w, http.StatusOK, s.h.Reset(PeerFrom(r)))
}

func (s *Server) postScan(w http.ResponseWriter, r *http.Request) {
	p := PeerFrom(r)
	if a, ok := s.h.(ScanAuthorizer); ok {
		if err := a.AuthorizeScan(p); err != nil {
			s.refusedScans.Add(1)
			refuse(w, http.StatusForbidden, Reply{Message: err.Error()})
			return
		}
	}
	if !isStream(r) {
		if !s.allow(w) {
			return
		}
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxScanLine))
		if err != nil {
			writeReply(w, http.StatusRequestEntityTooLarge, Reply{Message: fmt.Sprintf("scan body over %d bytes", MaxScanLine)})
			return
		}
		var sc Scan
		if err := strictUnmarshal(b, &sc); err != nil {
			writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
			return
		}
		if err := sc.Validate(); err != nil {
			writeReply(w, http.StatusBadRequest, Reply{Message: err.Error()})
			return
		}
		s.h.Scan(p, &sc, false)
		writeReply(w, http.StatusOK, Reply{Success: true, Message: "scan accepted"})
		return
	}
	s.h.ScanStream(p, true)
	defer s.h.ScanStream(p, false)
	var res StreamResult
	var bad int
	lim := rate.NewLimiter(StreamScanRate, StreamScanBurst)
	tooLong := func() string { return fmt.Sprintf("scan line over %d bytes; stream closed", MaxScanLine) }
	streamLines(w, r.Body, MaxScanLine, &res, tooLong, func(line []byte) bool {
		var sc Scan
		perr := strictUnmarshal(line, &sc)
		if perr == nil {
			perr = sc.Validate()
		}
		switch {
		case perr != nil:
			// A bad scan is not an arrival: it must not hold the scan gate open.
			res.Rejected++
			res.Message = perr.Error()
			if bad++; bad >= MaxBadScanLines {
				writeJSON(w, http.StatusBadRequest, res)
				return false
			}
		case !lim.Allow():
			res.Dropped++
		default:
			s.h.Scan(p, &sc, true)
			res.Accepted++
		}
		return true
	})
}
