package mcpserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// The same calls over Streamable HTTP on loopback.
func TestHTTPEachTool(t *testing.T) { checkEachTool(t, startHTTP(t, nil, nil, nil)) }

// A cancelled call over HTTP deletes its sessions too.
func TestHTTPCancel(t *testing.T) {
	f, _, cancel, errc := hangingDiscuss(t, true)
	cancel()
	testutil.Receive(t, "the cancelled call's return", guard, errc)
	testutil.Await(t, "the server's end of the call", guard, func() error { f.s.calls.Wait(); return nil })
	if live := f.srv.LiveSessions(); len(live) != 0 {
		t.Errorf("sessions left: %v", live)
	}
}

// A request from a web page of another host is refused; one from a page
// on this machine, or from a program (no Origin), is not.
func TestHTTPOrigin(t *testing.T) {
	f := startHTTP(t, nil, nil, nil)
	ctx := testutil.Context(t, guard)
	post := func(origin string) (int, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, origin := range []string{"https://evil.example", "http://127.0.0.1.evil.example:8080", "null", "file://"} {
		if code, body := post(origin); code != http.StatusForbidden || !strings.Contains(body, "refused") {
			t.Errorf("Origin %s: %d %s", origin, code, body)
		}
	}
	for _, origin := range []string{"", "http://localhost:6274", "http://127.0.0.1:3000", "http://[::1]:1"} {
		if code, body := post(origin); code != http.StatusOK {
			t.Errorf("Origin %q: %d %s", origin, code, body)
		}
	}
}

func TestListenAddr(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		want   string
		err    string
	}{
		{"127.0.0.1:8765", false, "127.0.0.1:8765", ""},
		{"localhost:0", false, "127.0.0.1:0", ""},
		{"[::1]:9", false, "[::1]:9", ""},
		{":8765", false, "", "would listen on every interface"},
		{"0.0.0.0:8765", false, "", "add --allow-remote"},
		{"192.168.1.5:80", false, "", "reachable from other machines"},
		{"0.0.0.0:8765", true, "0.0.0.0:8765", ""},
		{"8765", false, "", "is not an address"},
	} {
		got, err := ListenAddr(c.addr, c.remote)
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ListenAddr(%q, %v) = %q, %v; want %q, %q", c.addr, c.remote, got, err, c.want, c.err)
		}
	}
}
