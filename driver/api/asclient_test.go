package api

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// AsClientEnv makes the test binary a client of the socket it names (RunAsClient). The role tests run it
// under other uids and groups (SysProcAttr.Credential), one process per credential: a process per request
// took 53 s of the package's 57 s under -race (52 starts of a race-built test binary).
const AsClientEnv = "ROSORIN_API_TEST_AS_CLIENT"

// RunAsClient reads requests from stdin, one a line ("METHOD ROUTE BODY", tab separated), does each on a new
// connection to the socket of AsClientEnv and prints one line for it: "STATUS <code> <body>", or "DIAL <error>"
// when the socket could not be reached, or "BAD <line>". The caller reads the answer before it sends the next
// request, so it can look at the server between two requests. Exit 0 at the end of stdin.
func RunAsClient() int {
	sock := os.Getenv(AsClientEnv)
	tr := &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.SplitN(in.Text(), "\t", 3)
		if len(f) != 3 {
			fmt.Printf("BAD %q\n", in.Text())
			continue
		}
		method, route, body := f[0], f[1], f[2]
		req, _ := http.NewRequest(method, "http://rosorin"+route, strings.NewReader(body))
		if body != "" {
			req.ContentLength = int64(len(body))
		}
		resp, err := hc.Do(req)
		if err != nil {
			fmt.Println("DIAL", err)
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		fmt.Printf("STATUS %d %s\n", resp.StatusCode, strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " "))
	}
	return 0
}
