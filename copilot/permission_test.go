package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/schemacheck"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/session"
)

// wireLog records what the client writes, for a test to find the params
// of the calls it made. It keeps whole frames only: the bytes are cut into
// frames by their Content-Length as they are written (a Write need not be a
// frame), so a test reading while the client writes never sees half of one.
type wireLog struct {
	io.ReadWriteCloser

	mu      sync.Mutex
	pending testutil.Frames
	frames  [][]byte // bodies of the whole frames written, in order
	err     error    // a header that could not be framed
}

func (w *wireLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	bodies, err := w.pending.Feed(p)
	w.frames = append(w.frames, bodies...)
	if err != nil && w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	return w.ReadWriteCloser.Write(p)
}

// params returns the params of every call of method the client sent, in
// order.
func (w *wireLog) params(t *testing.T, method string) []json.RawMessage {
	t.Helper()
	w.mu.Lock()
	frames, ferr := slices.Clone(w.frames), w.err
	w.mu.Unlock()
	if ferr != nil {
		t.Fatalf("the client wrote what is not a frame: %v", ferr)
	}
	var out []json.RawMessage
	for _, body := range frames {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("a frame the client wrote is not JSON: %v", err)
		}
		if m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// recordedClient connects a client to a simulator through a wireLog, and
// checks all its traffic against the pinned CLI's schemas.
func recordedClient(t *testing.T, opts sim.Options) (*Client, *sim.Server, *wireLog) {
	t.Helper()
	srv := sim.NewServer(opts)
	w := &wireLog{ReadWriteCloser: schemacheck.Check(t, schemacheck.Default(t), srv.Dial())}
	c, err := Connect(testutil.Context(t, hangGuard), w, Options{})
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return c, srv, w
}

// permissionRequestOf is the request of a permission.requested event
// asking details (a request of kind), read as a session reads it.
func permissionRequestOf(t *testing.T, kind, details string) PermissionRequest {
	t.Helper()
	data, err := json.Marshal(map[string]any{"requestId": "r", "permissionRequest": json.RawMessage(details)})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := session.PermissionRequestOf(Event{Type: protocol.EventPermissionRequested, Data: data})
	if !ok || r.Kind != kind {
		t.Fatalf("the event %s reads as %+v", data, r)
	}
	r.SessionID = "s"
	return *r
}

// decisionsSent are the decisions the client sent the CLI, in order.
func decisionsSent(t *testing.T, w *wireLog) []PermissionDecision {
	t.Helper()
	var out []PermissionDecision
	for _, raw := range w.params(t, protocol.MethodSessionPermissionsHandlePendingPermissionRequest) {
		var p protocol.SessionPermissionsHandlePendingPermissionRequestParams
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Result)
	}
	return out
}

// Whatever a policy decides reaches the CLI as it decided, in the shape
// the CLI's schema requires (the tap fails the test otherwise); a policy
// that fails, panics or decides nothing rejects; an approval runs the
// tool, anything else does not.
func TestPolicyDecisionReachesTheCLI(t *testing.T) {
	approveForSession := func(_ context.Context, r PermissionRequest) (PermissionDecision, error) {
		return ApproveForSession(r), nil
	}
	cases := []struct {
		name   string
		policy PermissionPolicy
		want   string // the decision's JSON
		runs   bool
		// goesOn: the turn ends without an error although the tool did
		// not run (the CLI goes on after feedback or user-not-available).
		goesOn bool
	}{
		{"approve once", ApproveAll, `{"kind":"approve-once"}`, true, false},
		{"approve for the session", approveForSession,
			`{"kind":"approve-for-session","approval":{"kind":"custom-tool","toolName":"weather"}}`, true, false},
		{"approve for a location", func(_ context.Context, r PermissionRequest) (PermissionDecision, error) {
			return ApproveForLocation(r, "/src/project"), nil
		}, `{"kind":"approve-for-location","approval":{"kind":"custom-tool","toolName":"weather"},"locationKey":"/src/project"}`, true, false},
		{"reject with feedback", func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return Reject("use the cached forecast"), nil
		}, `{"kind":"reject","feedback":"use the cached forecast"}`, false, true},
		{"user not available", func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return UserNotAvailable(), nil
		}, `{"kind":"user-not-available"}`, false, true},
		{"deny all", DenyAll, `{"kind":"reject"}`, false, false},
		// A policy that cannot decide does not end the turn: the model is
		// told no one could be asked (as the official SDK answers).
		{"an error is user-not-available", func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return ApproveOnce(), errors.New("policy store unreachable")
		}, `{"kind":"user-not-available"}`, false, true},
		{"a panic is user-not-available", func(context.Context, PermissionRequest) (PermissionDecision, error) {
			panic("policy bug")
		}, `{"kind":"user-not-available"}`, false, true},
		{"no decision is user-not-available", func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return PermissionDecision{}, nil
		}, `{"kind":"user-not-available"}`, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _, w := recordedClient(t, sim.Options{Models: []sim.Model{
				model("m", sim.UseTool("weather", map[string]string{"city": "Oslo"}, reportTool)),
			}})
			ctx := testutil.Context(t, hangGuard)
			var calls int
			s, err := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{weatherTool(&calls)}, Permissions: tc.policy})
			if err != nil {
				t.Fatal(err)
			}
			// A plain refusal ends the turn; after a rejection with feedback
			// or user-not-available the turn goes on, the model reading the
			// reason, as CLI 1.0.102 does (TestRealCLIPermissionDecisions).
			r, err := s.Stream(ctx, "weather?", TurnHandlers{})
			if (tc.runs || tc.goesOn) != (err == nil) || tc.runs != (calls == 1) {
				t.Fatalf("the tool ran %d times; the turn: %q, %v", calls, r.Text, err)
			}
			sent := decisionsSent(t, w)
			if len(sent) != 1 {
				t.Fatalf("%d decisions sent, want 1", len(sent))
			}
			if got, _ := json.Marshal(sent[0]); string(got) != tc.want {
				t.Errorf("sent %s, want %s", got, tc.want)
			}
		})
	}
}

// The policy gets the request whole and typed: its id, the union's fields,
// and Decode's type for its kind.
func TestPolicyGetsTheTypedRequest(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{
		model("m", sim.UseTool("weather", map[string]string{"city": "Oslo"}, reportTool)),
	}})
	ctx := testutil.Context(t, hangGuard)
	var got []PermissionRequest
	var calls int
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{weatherTool(&calls)},
		Permissions: func(_ context.Context, r PermissionRequest) (PermissionDecision, error) {
			got = append(got, r)
			return ApproveOnce(), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx, "weather?"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	r := got[0]
	if r.SessionID != s.ID() || r.RequestID == "" || r.Kind != PermissionKindCustomTool || r.ToolName != "weather" ||
		r.Request.ToolName != "weather" || r.Request.ToolCallID == "" {
		t.Errorf("request %+v", r)
	}
	d, err := r.Decode()
	if err != nil {
		t.Fatal(err)
	}
	ct, ok := d.(*protocol.PermissionRequestCustomTool)
	if !ok || ct.ToolName != "weather" || !strings.Contains(string(ct.Args), "Oslo") {
		t.Fatalf("Decode = %#v", d)
	}
}

// ApproveForSession and ApproveForLocation remember what the CLI lets
// them remember for each kind, and approve once where it lets them
// remember nothing.
func TestApproveForSessionScopesByKind(t *testing.T) {
	req := func(kind, details string) PermissionRequest {
		return permissionRequestOf(t, kind, details)
	}
	cases := []struct {
		name string
		req  PermissionRequest
		want string
	}{
		{"shell it may remember", req("shell", `{"kind":"shell","fullCommandText":"git status && ls","commands":[{"identifier":"git status","readOnly":true},{"identifier":"ls","readOnly":true}],"canOfferSessionApproval":true}`),
			`{"kind":"approve-for-session","approval":{"kind":"commands","commandIdentifiers":["git status","ls"]}}`},
		{"shell it may not", req("shell", `{"kind":"shell","fullCommandText":"echo hi","commands":[{"identifier":"echo hi","readOnly":false}],"canOfferSessionApproval":false}`),
			`{"kind":"approve-once"}`},
		{"write", req("write", `{"kind":"write","fileName":"/a","diff":"","intention":"x","canOfferSessionApproval":true}`),
			`{"kind":"approve-for-session","approval":{"kind":"write"}}`},
		{"write it may not", req("write", `{"kind":"write","fileName":"/a","diff":"","intention":"x","canOfferSessionApproval":false}`),
			`{"kind":"approve-once"}`},
		{"read", req("read", `{"kind":"read","path":"/etc/hosts","intention":"x"}`),
			`{"kind":"approve-for-session","approval":{"kind":"read"}}`},
		{"url", req("url", `{"kind":"url","url":"https://example.com:8443/a?b","intention":"x"}`),
			`{"kind":"approve-for-session","domain":"example.com"}`},
		{"mcp", req("mcp", `{"kind":"mcp","serverName":"github","toolName":"search","toolTitle":"Search","readOnly":true}`),
			`{"kind":"approve-for-session","approval":{"kind":"mcp","serverName":"github","toolName":"search"}}`},
		{"custom tool", req("custom-tool", `{"kind":"custom-tool","toolName":"weather","toolDescription":"x"}`),
			`{"kind":"approve-for-session","approval":{"kind":"custom-tool","toolName":"weather"}}`},
		{"memory", req("memory", `{"kind":"memory","fact":"x"}`),
			`{"kind":"approve-for-session","approval":{"kind":"memory"}}`},
		{"extension env access", req("extension-env-access", `{"kind":"extension-env-access","extensionName":"e","environmentVariables":["TOKEN"]}`),
			`{"kind":"approve-for-session","approval":{"kind":"extension-env-access","extensionName":"e","environmentVariables":["TOKEN"]}}`},
		{"hook", req("hook", `{"kind":"hook","toolName":"bash"}`), `{"kind":"approve-once"}`},
		{"a newer kind", req("teleport", `{"kind":"teleport"}`), `{"kind":"approve-once"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := json.Marshal(ApproveForSession(tc.req)); string(got) != tc.want {
				t.Errorf("ApproveForSession = %s, want %s", got, tc.want)
			}
			loc := ApproveForLocation(tc.req, "/repo")
			switch {
			case tc.req.Kind == PermissionKindURL || strings.Contains(tc.want, "approve-once"):
				if loc.Kind != DecisionApproveOnce {
					t.Errorf("ApproveForLocation = %+v, want approve-once: nothing to remember", loc)
				}
			case loc.Kind != DecisionApproveForLocation || loc.LocationKey != "/repo" || !strings.Contains(tc.want, string(loc.Approval)):
				t.Errorf("ApproveForLocation = %+v, want the session's approval at /repo", loc)
			}
			if !Approves(ApproveForSession(tc.req)) {
				t.Error("an approval that does not approve")
			}
		})
	}
}

func TestApprovesOnlyApprovals(t *testing.T) {
	for _, d := range []PermissionDecision{ApproveOnce(), ApproveReadOnlyForSession("/src"), ApprovePermanently("example.com"), {Kind: "approved"}} {
		if !Approves(d) {
			t.Errorf("%+v does not approve", d)
		}
	}
	for _, d := range []PermissionDecision{Reject("no"), UserNotAvailable(), {}, {Kind: "denied-by-rules"}} {
		if Approves(d) {
			t.Errorf("%+v approves", d)
		}
	}
}

// Decode gives each kind its type, and a kind newer than this package its
// raw JSON.
func TestPermissionRequestDecode(t *testing.T) {
	for kind, want := range map[string]any{
		PermissionKindShell: &protocol.PermissionRequestShell{}, PermissionKindWrite: &protocol.PermissionRequestWrite{},
		PermissionKindRead: &protocol.PermissionRequestRead{}, PermissionKindURL: &protocol.PermissionRequestURL{},
		PermissionKindMCP: &protocol.PermissionRequestMCP{}, PermissionKindMemory: &protocol.PermissionRequestMemory{},
		PermissionKindCustomTool: &protocol.PermissionRequestCustomTool{}, PermissionKindHook: &protocol.PermissionRequestHook{},
		PermissionKindExtensionManagement:       &protocol.PermissionRequestExtensionManagement{},
		PermissionKindExtensionPermissionAccess: &protocol.PermissionRequestExtensionPermissionAccess{},
		PermissionKindExtensionEnvAccess:        &protocol.PermissionRequestExtensionEnvAccess{},
		PermissionKindWorkflow:                  &protocol.PermissionRequestWorkflow{},
	} {
		d, err := permissionRequestOf(t, kind, `{"kind":"`+kind+`"}`).Decode()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got, wantT := fmt.Sprintf("%T", d), fmt.Sprintf("%T", want); got != wantT {
			t.Errorf("%s decodes as %s, want %s", kind, got, wantT)
		}
	}
	d, err := permissionRequestOf(t, "teleport", `{"kind":"teleport","to":"mars"}`).Decode()
	if raw, ok := d.(json.RawMessage); err != nil || !ok || !strings.Contains(string(raw), "mars") {
		t.Errorf("a newer kind: %#v, %v", d, err)
	}
	if _, err := permissionRequestOf(t, "shell", `{"kind":"shell","commands":"not a list"}`).Decode(); err == nil {
		t.Error("a malformed shell request decoded")
	}
}

// The policies of one session run at once, at most maxPolicyCalls of
// them: past that, asking waits for one to return, and every request is
// decided in the end.
func TestPoliciesRunAtOnceWithinTheirBound(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", func(sim.Turn) sim.Response { return sim.Text("") })}})
	ctx := testutil.Context(t, hangGuard)
	var mu sync.Mutex
	running, most, decided := 0, 0, 0
	full := make(chan struct{})
	var fullOnce sync.Once
	release := make(chan struct{})
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", Permissions: func(pctx context.Context, _ PermissionRequest) (PermissionDecision, error) {
		mu.Lock()
		running++
		most = max(most, running)
		if running == maxPolicyCalls {
			fullOnce.Do(func() { close(full) })
		}
		mu.Unlock()
		select {
		case <-release:
		case <-pctx.Done():
		}
		mu.Lock()
		running--
		decided++
		mu.Unlock()
		return NoResult(), nil // nothing to send for these made-up requests
	}})
	if err != nil {
		t.Fatal(err)
	}
	const asks = maxPolicyCalls + 4
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		for i := range asks {
			s.askPolicy(ctx, &PermissionRequest{RequestID: fmt.Sprint("r", i), Kind: PermissionKindRead}, nil, nil)
		}
	}()
	testutil.Receive(t, "the bound's worth of policies running", hangGuard, full)
	close(release)
	testutil.Receive(t, "every request asked", hangGuard, asked)
	if err := s.Destroy(ctx); err != nil { // Close below waits for the policies' goroutines
		t.Fatal(err)
	}
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if most != maxPolicyCalls || decided != asks {
		t.Errorf("at most %d policies ran at once (bound %d); %d of %d decided", most, maxPolicyCalls, decided, asks)
	}
}
