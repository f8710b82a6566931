package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves the server over Streamable HTTP. A request whose Origin
// header names another host than a loopback one is refused (403): a web
// page the user visits must not reach the server through their browser.
// Requests without Origin (programs, not browsers) pass. The SDK also
// refuses a request that reached a loopback address with a Host header
// that is not a loopback name (DNS rebinding).
func (s *Server) Handler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{Logger: s.log})
	return checkOrigin(h)
}

// checkOrigin refuses requests from a browser page that is not served from
// this machine.
func checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			http.Error(w, fmt.Sprintf("Forbidden: requests from origin %q are refused; quorum mcp accepts requests from programs and from pages on this machine only", o), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackOrigin reports whether origin is a page on this machine.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// ListenAddr checks addr for --http: a loopback address unless
// allowRemote, and "localhost" made 127.0.0.1 so that the server listens
// where the check looked.
func ListenAddr(addr string, allowRemote bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--http %s is not an address; give host:port, such as 127.0.0.1:8765", addr)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if !allowRemote && !isLoopbackHost(host) {
		what := host
		if host == "" {
			what = "every interface"
		}
		return "", fmt.Errorf("--http %s would listen on %s, reachable from other machines, and the server runs models on the user's Copilot account without authentication; listen on 127.0.0.1, or add --allow-remote if a network you trust should reach it", addr, what)
	}
	return net.JoinHostPort(host, port), nil
}

// ServeHTTP serves the server over Streamable HTTP on ln until ctx ends,
// then closes the server.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	// Calls first: their streams end, then the listener and open
	// connections go.
	s.Close()
	for ss := range s.mcp.Sessions() { // their GET streams never go idle
		ss.Close()
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if serr := hs.Shutdown(sctx); serr != nil {
		hs.Close()
	}
	if err == nil {
		err = <-errc
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
