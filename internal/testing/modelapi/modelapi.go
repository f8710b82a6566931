// Package modelapi is test support, not on the production path: a local stand-in for the Copilot model API that the
// GitHub Copilot CLI calls, so tests can run the real CLI without a network
// and with scripted model answers.
//
// A [Server] listens on 127.0.0.1 and answers the few endpoints the CLI needs
// (see shared/PROTOCOL.md, "Running it offline"):
//
//   - GET /models lists every configured model id, with its premium-request
//     multiplier (Config.Multipliers); without it the CLI retries for about
//     23 s per turn and then fails the turn.
//   - GET /copilot_internal/user describes a user whose API and telemetry
//     endpoints are this server, so nothing is sent elsewhere, and whose
//     premium-request allowance is Config.PremiumQuota.
//   - POST /chat/completions answers with whatever the model's [Responder]
//     returns, streamed as server-sent events when the request says
//     "stream":true, else as one chat.completion body; with
//     Config.AICreditsPerRequest it says what it cost in AI credits.
//   - Telemetry posts get 204; everything else (the GitHub MCP endpoint,
//     team customizations, unknown paths) gets 404, which the CLI tolerates.
//
// Every chat request is recorded; [Server.Requests] returns them so a test can
// assert on exactly what the CLI sent (its prompt, the tools it offered, the
// tool results it returned).
package modelapi

import (
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxRequestBody bounds a chat request. The CLI's system prompt alone is about
// 40 KB and long conversations grow, so the bound is generous; it exists so a
// broken client cannot make a test process buffer without limit.
const maxRequestBody = 64 << 20

// Config configures a [Server].
type Config struct {
	// Models maps each model id that GET /models lists to the responder that
	// answers chat requests for it. More can be added with [Server.SetModel].
	Models map[string]Responder
	// Listener, when set, is served instead of a new listener on
	// 127.0.0.1:0. clitest passes one made inside a private network
	// namespace. The server owns it and closes it on Close.
	Listener net.Listener
	// MCPEnabled makes GET /copilot_internal/user describe an account whose
	// policy allows third-party MCP servers (is_mcp_enabled), as a user's
	// usually does: the CLI then loads a session's MCP servers (MCPServers)
	// and offers their tools. Without it the CLI 1.0.102 filters every
	// session MCP server out by name (mcp.list: mcp3pEnabled false, the
	// server under filteredServers), and starts none.
	MCPEnabled bool
	// Multipliers sets the premium-request multiplier GET /models reports
	// for a model (its billing.multiplier, as GitHub's API reports it);
	// a model not named here reports 1. The CLI passes it on in
	// models.list.
	Multipliers map[string]float64
	// PremiumQuota, when set, is the account's premium-request allowance:
	// GET /copilot_internal/user then carries it as
	// quota_snapshots.premium_interactions, where the CLI reads what
	// account.getQuota reports. Nil describes an account with no
	// snapshots, as before.
	PremiumQuota *Quota
	// AICreditsPerRequest, when above zero, makes every chat response
	// report that it cost this many AI credits (copilot_usage, as a
	// token-billed account's responses carry it). The CLI 1.0.102 counts
	// them, and only them, against a session's sessionLimits.maxAiCredits.
	AICreditsPerRequest float64
}

// Server is a running local model API. Its methods are safe for concurrent use.
type Server struct {
	url        string
	mcpEnabled bool // Config.MCPEnabled
	// multipliers and premiumQuota are Config's, copied at Start and
	// only read afterwards.
	multipliers  map[string]float64
	premiumQuota *Quota
	aiCredits    float64 // Config.AICreditsPerRequest
	http         *http.Server
	// done is closed by Close so that stalled responses end even if the
	// HTTP server's own connection shutdown were not to cancel their context.
	done      chan struct{}
	closeOnce sync.Once
	served    chan struct{}

	// handlers tracks running ServeHTTP calls so that Close can wait for
	// them: http.Server.Close does not, and a test's leak check would then
	// race a handler that is still unwinding.
	handlers sync.WaitGroup

	mu            sync.Mutex
	closed        bool // no new handlers may join the WaitGroup
	models        map[string]Responder
	order         []string // model ids in the order they were added, for /models
	conversations map[string]Responder
	requests      []Request
	calls         []string

	seq atomic.Int64 // completion ids
	// inflight counts chat handlers still running, so tests can see that a
	// stalled response really ends when its request is cancelled.
	inflight atomic.Int64
}

// Start starts a server. Close it when done.
func Start(cfg Config) (*Server, error) {
	ln := cfg.Listener
	if ln == nil {
		var err error
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("modelapi: listen: %w", err)
		}
	}
	s := &Server{
		url:           "http://" + ln.Addr().String(),
		mcpEnabled:    cfg.MCPEnabled,
		multipliers:   maps.Clone(cfg.Multipliers),
		premiumQuota:  cloneQuota(cfg.PremiumQuota),
		aiCredits:     cfg.AICreditsPerRequest,
		done:          make(chan struct{}),
		served:        make(chan struct{}),
		models:        make(map[string]Responder),
		conversations: make(map[string]Responder),
	}
	// Sorted so that the model list does not depend on map iteration order.
	for _, id := range slices.Sorted(maps.Keys(cfg.Models)) {
		s.SetModel(id, cfg.Models[id])
	}
	s.http = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

// URL is the server's base URL, "http://127.0.0.1:PORT", with no trailing slash.
func (s *Server) URL() string { return s.url }

// Close stops the server: it closes the listener and every connection, which
// ends stalled responses, and waits until every handler has returned.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.done)
		err = s.http.Close()
		<-s.served
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.handlers.Wait()
	})
	return err
}

// SetModel adds a model (listed by GET /models from now on) or replaces its
// responder.
func (s *Server) SetModel(id string, r Responder) {
	if r == nil {
		panic("modelapi: nil responder for model " + id)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.models[id]; !ok {
		s.order = append(s.order, id)
	}
	s.models[id] = r
}

// SetConversation makes r answer every chat request of the conversation
// (the CLI session id) whatever its model; nil removes it. Tests that create
// sessions with client-chosen ids script each session this way.
func (s *Server) SetConversation(sessionID string, r Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r == nil {
		delete(s.conversations, sessionID)
		return
	}
	s.conversations[sessionID] = r
}

// Requests returns a copy of the chat requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Calls returns "METHOD /path" for every HTTP request received so far, in
// arrival order, so a test can see what else the CLI asked for. Requests
// made through the server as a proxy show their target instead of a path:
// "CONNECT host:443" or "GET http://host/path".
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Active reports how many chat requests are being answered right now. A
// test waits for it to reach zero to see that the CLI gave up a stalled model
// call (after session.abort, say) rather than leaving it open.
func (s *Server) Active() int { return int(s.inflight.Load()) }

// ServeHTTP routes one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A request that came here as a proxy (the CLI's HTTP(S)_PROXY points
	// here as a safety net) is recorded with its real target, so a test can
	// see what the CLI tried to reach outside.
	target := r.URL.Path
	switch {
	case r.Method == http.MethodConnect:
		target = r.Host
	case r.URL.IsAbs():
		target = r.URL.String()
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "closed", "modelapi: server closed")
		return
	}
	s.handlers.Add(1)
	defer s.handlers.Done()
	s.calls = append(s.calls, r.Method+" "+target)
	s.mu.Unlock()

	switch {
	case r.URL.Path == "/models" && r.Method == http.MethodGet:
		s.serveModels(w)
	case r.URL.Path == "/copilot_internal/user" && r.Method == http.MethodGet:
		s.serveUser(w)
	case r.URL.Path == "/chat/completions" && r.Method == http.MethodPost:
		s.serveChat(w, r)
	case strings.HasPrefix(r.URL.Path, "/telemetry") && r.Method == http.MethodPost:
		// Telemetry is gzip-compressed JSON lines that no test needs; drain
		// it so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxRequestBody))
		w.WriteHeader(http.StatusNoContent)
	default:
		writeError(w, http.StatusNotFound, "not_found", "modelapi: no such endpoint: "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request) {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "modelapi: read body: "+err.Error())
		return
	}
	req, err := parseRequest(body, r.Header)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "modelapi: "+err.Error())
		return
	}

	// Record before answering so a stalled or failing request is visible too.
	s.mu.Lock()
	s.requests = append(s.requests, req)
	responder := s.conversations[req.Conversation]
	if responder == nil || req.Conversation == "" {
		responder = s.models[req.Model]
	}
	s.mu.Unlock()
	if responder == nil {
		writeError(w, http.StatusNotFound, "model_not_found", "modelapi: no responder for model "+req.Model)
		return
	}

	reply := responder(req)
	ctx := r.Context()
	if !s.sleep(ctx, reply.StartDelay) {
		return
	}
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.Body == "" {
			writeError(w, reply.Status, "modelapi_error", fmt.Sprintf("modelapi: scripted error %d", reply.Status))
			return
		}
		w.Header().Set("Content-Type", contentTypeOf(reply.Body))
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.Body)
		return
	}

	id := fmt.Sprintf("chatcmpl-modelapi-%d", s.seq.Add(1))
	usage := reply.Usage
	if usage == nil {
		usage = estimateUsage(req, reply)
	}
	if req.Stream {
		s.stream(ctx, w, req, reply, id, usage)
		return
	}
	if reply.Stall {
		s.waitEnd(ctx)
		return
	}
	writeJSON(w, http.StatusOK, completion(req.Model, id, reply, usage, s.copilotUsage()))
}
