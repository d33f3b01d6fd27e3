package api

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// AsClientEnv makes the test binary a one-request client (RunAsClient): "SOCKET METHOD ROUTE BODY", tab
// separated. The role tests run it under other uids and groups (SysProcAttr.Credential).
const AsClientEnv = "ROSORIN_API_TEST_AS_CLIENT"

// RunAsClient does the request of AsClientEnv and prints "STATUS <code> <body>"; exit 0 when a status came
// back, 3 when the socket could not be reached.
func RunAsClient() int {
	f := strings.SplitN(os.Getenv(AsClientEnv), "\t", 4)
	if len(f) != 4 {
		fmt.Println("bad", AsClientEnv)
		return 2
	}
	sock, method, route, body := f[0], f[1], f[2], f[3]
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	req, _ := http.NewRequest(method, "http://rosorin"+route, strings.NewReader(body))
	if body != "" {
		req.ContentLength = int64(len(body))
	}
	resp, err := hc.Do(req)
	if err != nil {
		fmt.Println("DIAL", err)
		return 3
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Printf("STATUS %d %s\n", resp.StatusCode, strings.TrimSpace(string(b)))
	return 0
}
