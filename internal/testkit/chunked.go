package testkit

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// ChunkedPost sends lines (each with its newline) as one chunked HTTP/1.1 body to route on the unix socket
// sock, the way `curl -T -` streams, and returns the status and the response body. A stream's bytes go out
// exactly as given, so a test can send what no well-behaved client would (garbage lines, control bytes).
func ChunkedPost(sock, route string, lines []string) (int, []byte, error) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return 0, nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	w := bufio.NewWriter(c)
	fmt.Fprintf(w, "POST %s HTTP/1.1\r\nHost: rosorin\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-ndjson\r\n\r\n", route)
	for _, l := range lines {
		fmt.Fprintf(w, "%x\r\n%s\n\r\n", len(l)+1, l)
	}
	fmt.Fprintf(w, "0\r\n\r\n")
	if err := w.Flush(); err != nil {
		return 0, nil, fmt.Errorf("stream write: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, nil, fmt.Errorf("stream answer: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body, nil
}
