package copilot

// Real-CLI conformance for what the official Go SDK's end-to-end tests
// expect of permissions, tool errors, capabilities, built-in tool
// overrides, a provider's model and the sessionEnd hook (issue 24, items
// 2–9; item 1, resume, is conformance_resume_test.go's).

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

var lookupParams = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)

// lastToolResults is what the model was told of the tool calls of the last
// model request made since n were recorded that carried tool results.
func lastToolResults(t *testing.T, api *modelapi.Server, n int) []string {
	t.Helper()
	var out []string
	for _, req := range lastRequests(t, api, n) {
		if req.HasToolResults {
			out = out[:0]
			for _, m := range req.ToolResults() {
				out = append(out, m.Content)
			}
		}
	}
	return out
}

// Item 2: a policy that fails does not end the turn: the model is told the
// permission could not be had and answers.
func TestRealCLIFailingPolicyLetsTheTurnGoOn(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.ToolThenText("lookup", `{"q":"x"}`, modelapi.Echo)}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var ran atomic.Bool
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		Tools: []Tool{{Name: "lookup", Parameters: lookupParams, Handler: func(context.Context, ToolCall) (string, error) { ran.Store(true); return "", nil }}},
		Permissions: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			return PermissionDecision{}, errors.New("handler error")
		}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(api.Requests())
	if _, err := s.Ask(ctx, "look it up; if you can't, say 'failed'"); err != nil {
		t.Fatalf("the turn of a failing policy: %v, want it to go on", err)
	}
	told := lastToolResults(t, api, n)
	if ran.Load() || len(told) != 1 || !strings.Contains(strings.ToLower(told[0]), "permission") {
		t.Errorf("the tool ran: %v; the model was told %q", ran.Load(), told)
	}
}

// Item 3: two tools called at once, and the policy for the first waits for
// the second request: each request's policy runs at once, each answer goes
// as its policy returns, and the session's events keep the CLI's order.
func TestRealCLIParallelPermissionRequestsAreDecidedAtOnce(t *testing.T) {
	both := func(req modelapi.Request) modelapi.Reply {
		if req.HasToolResults {
			return modelapi.Echo(req)
		}
		return modelapi.ToolCalls(modelapi.Call{Name: "lookup", Arguments: `{"q":"first"}`}, modelapi.Call{Name: "lookup", Arguments: `{"q":"second"}`})
	}
	c, _ := startReal(t, map[string]modelapi.Responder{"m": both}, Options{})
	ctx := testutil.Context(t, hangGuard)
	secondAsked := make(chan struct{})
	var mu sync.Mutex
	var order []string // event ids, as OnEvent got them
	policy := func(pctx context.Context, r PermissionRequest) (PermissionDecision, error) {
		var args struct{ Q string }
		_ = json.Unmarshal(r.Request.Args, &args)
		if args.Q == "second" {
			close(secondAsked)
			return ApproveOnce(), nil
		}
		select { // a policy that waits for the other request of the turn
		case <-secondAsked:
			return ApproveOnce(), nil
		case <-pctx.Done():
			return PermissionDecision{}, pctx.Err()
		}
	}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Permissions: policy,
		Tools: []Tool{{Name: "lookup", Parameters: lookupParams, Handler: func(_ context.Context, call ToolCall) (string, error) {
			return "result of " + string(call.Arguments), nil
		}}},
		OnEvent: func(ev Event) { mu.Lock(); order = append(order, ev.ID); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Stream(ctx, "look both up", TurnHandlers{})
	if err != nil || r.ToolCalls != 2 || !strings.Contains(r.Text, "first") || !strings.Contains(r.Text, "second") {
		t.Fatalf("%q (%d tool calls), %v", r.Text, r.ToolCalls, err)
	}
	kept, err := s.Messages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var keptIDs []string
	for _, ev := range kept {
		if slices.Contains(order, ev.ID) {
			keptIDs = append(keptIDs, ev.ID)
		}
	}
	got := slices.DeleteFunc(slices.Clone(order), func(id string) bool { return !slices.Contains(keptIDs, id) })
	if len(keptIDs) < 5 || !slices.Equal(got, keptIDs) {
		t.Errorf("OnEvent got the session's events in another order than the CLI keeps them (%d of them)", len(keptIDs))
	}
}

// startRealTCP starts the real CLI listening on a loopback port (in the
// test's sandbox) and returns a first client and a way to connect others to
// the same CLI.
func startRealTCP(t *testing.T, models map[string]modelapi.Responder) (*Client, func() *Client, *modelapi.Server) {
	t.Helper()
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("the conformance tests need the real Copilot CLI: %v", err)
	}
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, modelapi.Config{Models: models})
	var addr string
	o := Options{Transport: TCP, CLIPath: bin, Env: clitest.OfflineEnv(t, api.URL()), WorkingDir: t.TempDir(),
		Command: func(bin string, args ...string) *exec.Cmd { return sb.Command(context.Background(), bin, args...) },
		Dial: func(ctx context.Context, network, a string) (net.Conn, error) {
			addr = a
			return sb.Dial(ctx, network, a)
		},
		Args: []string{"--disable-builtin-mcps"}}
	c, err := Start(testutil.Context(t, hangGuard), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	another := func() *Client {
		ctx := testutil.Context(t, hangGuard)
		conn, err := sb.Dial(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := Connect(ctx, conn, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c2.Close() })
		return c2
	}
	return c, another, api
}

// Item 4: two clients of one session on one CLI; one leaves permission
// requests to the other (NoResult), which decides; a tool the first did
// not declare is the second's to run, and only it answers the call.
func TestRealCLINoResultLeavesThePermissionToAnotherClient(t *testing.T) {
	c1, another, _ := startRealTCP(t, map[string]modelapi.Responder{"m": modelapi.ToolThenText("lookup", `{"q":"x"}`, modelapi.Echo)})
	c2 := another()
	ctx := testutil.Context(t, hangGuard)
	var observed, decided, ran atomic.Int32
	s1, err := c1.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		Permissions: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			observed.Add(1)
			return NoResult(), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := c2.ResumeSession(ctx, s1.ID(), SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		Tools: []Tool{{Name: "lookup", Parameters: lookupParams, Handler: func(context.Context, ToolCall) (string, error) {
			ran.Add(1)
			return "the second client looked it up", nil
		}}},
		Permissions: func(context.Context, PermissionRequest) (PermissionDecision, error) {
			decided.Add(1)
			return ApproveOnce(), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	a, err := s1.Ask(ctx, "look it up")
	if err != nil || a != "the second client looked it up" {
		t.Fatalf("%q, %v", a, err)
	}
	if observed.Load() != 1 || decided.Load() != 1 || ran.Load() != 1 {
		t.Errorf("the observer's policy was asked %d times, the decider's %d; the tool ran %d times (want 1 each)", observed.Load(), decided.Load(), ran.Load())
	}
}

// Item 5: a handler's error text never reaches the model, which is told
// only that the tool failed; the program keeps it (ToolTrace). A
// ToolError tells the model what its ForModel says.
func TestRealCLIToolErrorIsNotShownToTheModel(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.ToolThenText("lookup", `{"q":"x"}`, modelapi.Echo)}, Options{})
	ctx := testutil.Context(t, hangGuard)
	for _, tc := range []struct {
		name      string
		err       error
		told, not string
	}{
		{"plain error", errors.New("Melbourne: dial db.internal:5432 as admin"), "Tool execution failed", "Melbourne"},
		{"ToolError", &ToolError{ForModel: "no such city; try another", Err: errors.New("Melbourne: dial db.internal:5432")}, "no such city; try another", "Melbourne"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trace := &ToolTrace{}
			s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Permissions: ApproveAll, Trace: trace,
				Tools: []Tool{{Name: "lookup", Parameters: lookupParams, Handler: func(context.Context, ToolCall) (string, error) { return "", tc.err }}}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Destroy(ctx)
			n := len(api.Requests())
			a, err := s.Ask(ctx, "where am I?")
			if err != nil {
				t.Fatal(err)
			}
			told := lastToolResults(t, api, n)
			if len(told) != 1 || !strings.Contains(told[0], tc.told) || strings.Contains(told[0], tc.not) || strings.Contains(a, tc.not) {
				t.Errorf("the model was told %q and answered %q", told, a)
			}
			if e := trace.Entries(); len(e) != 1 || !strings.Contains(e[0].Error, "Melbourne") {
				t.Errorf("the trace kept %+v", e)
			}
		})
	}
}

// Item 6: a session says what it can do; Elicit refuses, before sending
// anything, in a session whose clients cannot show a form.
func TestRealCLISessionCapabilities(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	ask := protocol.SessionUIElicitationParams{Message: "Which database?", RequestedSchema: protocol.UIElicitationSchema{
		Type: "object", Properties: map[string]protocol.UIElicitationSchemaProperty{"db": {Type: json.RawMessage(`"string"`)}}}}
	plain, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools()})
	if err != nil {
		t.Fatal(err)
	}
	if caps := plain.Capabilities(); caps.UI.Elicitation {
		t.Errorf("a session without OnElicitation: %+v", caps)
	}
	if !strings.Contains(plain.WorkspacePath(), plain.ID()) {
		t.Errorf("WorkspacePath %q does not name the session", plain.WorkspacePath())
	}
	if _, err := plain.Elicit(ctx, ask); !errors.Is(err, ErrNoElicitation) {
		t.Errorf("Elicit without the capability: %v, want ErrNoElicitation", err)
	}
	forms, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		OnElicitation: func(context.Context, *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			return &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionAccept,
				Content: protocol.UIElicitationResponseContent{"db": json.RawMessage(`"postgres"`)}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if caps := forms.Capabilities(); !caps.UI.Elicitation {
		t.Errorf("a session with OnElicitation: %+v", caps)
	}
	if res, err := forms.Elicit(ctx, ask); err != nil || string(res.Content["db"]) != `"postgres"` {
		t.Errorf("Elicit: %+v, %v", res, err)
	}
	if _, err := plain.Confirm(ctx, "Go on?"); !errors.Is(err, ErrNoElicitation) {
		t.Errorf("Confirm without the capability: %v", err)
	}
}

// Confirm, Select and Input ask the forms the official SDK's UI helpers
// ask, and read their answers; a declined form is no answer.
func TestRealCLIFormHelpers(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	var decline atomic.Bool
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		OnElicitation: func(_ context.Context, d *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			if decline.Load() {
				return &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionDecline}, nil
			}
			answers := map[string]string{"confirmed": `true`, "selection": `"blue"`, "value": `"Ada"`}
			for name := range d.RequestedSchema.Properties {
				return &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionAccept,
					Content: protocol.UIElicitationResponseContent{name: json.RawMessage(answers[name])}}, nil
			}
			return nil, errors.New("a form without fields")
		}})
	if err != nil {
		t.Fatal(err)
	}
	if yes, err := s.Confirm(ctx, "Go on?"); err != nil || !yes {
		t.Errorf("Confirm: %v, %v", yes, err)
	}
	if got, ok, err := s.Select(ctx, "Colour?", []string{"red", "blue"}); err != nil || !ok || got != "blue" {
		t.Errorf("Select: %q %v %v", got, ok, err)
	}
	if got, ok, err := s.Input(ctx, "Name?", protocol.UIElicitationSchemaProperty{Title: "Name", MaxLength: new(int64(40))}); err != nil || !ok || got != "Ada" {
		t.Errorf("Input: %q %v %v", got, ok, err)
	}
	decline.Store(true)
	if yes, err := s.Confirm(ctx, "Go on?"); err != nil || yes {
		t.Errorf("a declined Confirm: %v, %v", yes, err)
	}
	if _, ok, err := s.Select(ctx, "Colour?", []string{"red"}); err != nil || ok {
		t.Errorf("a declined Select: %v %v", ok, err)
	}
}

// Item 7: a client tool overrides the built-in tool of its name: the model
// is offered one grep, the client's, and its call runs the client's
// handler.
func TestRealCLIClientToolOverridesBuiltin(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"m": modelapi.ToolThenText("grep", `{"query":"hello"}`, modelapi.Echo)}, Options{})
	ctx := testutil.Context(t, hangGuard)
	grep := DefineTool("grep", "A custom grep (override-marker-7)", func(_ context.Context, a struct {
		Query string `json:"query"`
	}) (string, error) {
		return "CUSTOM_GREP_RESULT: " + a.Query, nil
	})
	grep.OverridesBuiltInTool = true
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{grep}, Permissions: ApproveAll})
	if err != nil {
		t.Fatal(err)
	}
	n := len(api.Requests())
	a, err := s.Ask(ctx, "use grep to search for hello")
	if err != nil || a != "CUSTOM_GREP_RESULT: hello" {
		t.Fatalf("%q, %v", a, err)
	}
	var greps []string
	for _, tl := range lastRequests(t, api, n)[0].Tools {
		if tl.Name == "grep" {
			greps = append(greps, tl.Description)
		}
	}
	if len(greps) != 1 || !strings.Contains(greps[0], "override-marker-7") {
		t.Errorf("the model was offered grep as %q", greps)
	}
	// Without it, CLI 1.0.102 fails the turn, naming the flag.
	grep.OverridesBuiltInTool = false
	s, err = c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{grep}, Permissions: ApproveAll})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx, "use grep"); !errors.Is(err, ErrTurnFailed) || !strings.Contains(err.Error(), "overridesBuiltInTool") {
		t.Errorf("a client tool named as a built-in one, without the flag: %v", err)
	}
	// Even when BuiltinTools does not offer the built-in.
	s, err = c.NewSession(ctx, SessionConfig{Model: "m", Tools: []Tool{grep}, BuiltinTools: []string{"view"}, Permissions: ApproveAll})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx, "use grep"); !errors.Is(err, ErrTurnFailed) || !strings.Contains(err.Error(), "overridesBuiltInTool") {
		t.Errorf("a client tool named as a built-in one that is not offered, without the flag: %v", err)
	}
}

// Item 8: a provider's ModelID is the session's model when Model is empty.
func TestRealCLIProviderModelIDWithoutModel(t *testing.T) {
	c, api := startReal(t, map[string]modelapi.Responder{"byok": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	s, err := c.NewSession(ctx, SessionConfig{BuiltinTools: NoBuiltinTools(),
		Provider: &protocol.ProviderConfig{Type: protocol.ProviderConfigTypeOpenai, BaseURL: api.URL(), APIKey: "k", ModelID: "byok"}})
	if err != nil {
		t.Fatalf("a session with Provider.ModelID and no Model: %v", err)
	}
	n := len(api.Requests())
	if a, err := s.Ask(ctx, "hello provider"); err != nil || a != "hello provider" {
		t.Fatalf("%q, %v", a, err)
	}
	if req := lastRequests(t, api, n)[0]; req.Model != "byok" || s.Model() != "byok" {
		t.Errorf("the provider was asked for %q; Session.Model is %q", req.Model, s.Model())
	}
}

// Item 9: Destroy reads on until the CLI answers, and CLI 1.0.102 asks the
// sessionEnd hook before it does: the hook has run when Destroy returns.
func TestRealCLISessionEndHookRunsOnDestroy(t *testing.T) {
	c, _ := startReal(t, map[string]modelapi.Responder{"m": modelapi.Echo}, Options{})
	ctx := testutil.Context(t, hangGuard)
	ended := make(chan SessionEndInput, 4)
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), Hooks: &Hooks{
		OnSessionEnd: func(_ context.Context, in SessionEndInput) (*SessionEndOutput, error) {
			ended <- in
			return &SessionEndOutput{SessionSummary: "session ended"}, nil
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Ask(ctx, "say bye"); err != nil {
		t.Fatal(err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case in := <-ended:
		if in.SessionID != s.ID() || in.Reason == "" {
			t.Errorf("the hook got %+v", in)
		}
	default:
		t.Fatal("the sessionEnd hook had not run when Destroy returned")
	}
}

// Item 6, across clients: a second client of the session that shows forms
// joins (a resume with OnElicitation); the CLI tells the first
// (capabilities.changed), whose Capabilities then say so, and whose Elicit
// the second answers.
func TestRealCLICapabilitiesFollowTheSessionsClients(t *testing.T) {
	c1, another, _ := startRealTCP(t, map[string]modelapi.Responder{"m": modelapi.Echo})
	c2 := another()
	ctx := testutil.Context(t, hangGuard)
	changed := make(chan struct{}, 8)
	s1, err := c1.NewSession(ctx, SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(), OnEvent: func(ev Event) {
		if ev.Type == protocol.EventCapabilitiesChanged {
			changed <- struct{}{}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s1.Capabilities().UI.Elicitation {
		t.Fatal("a session no client shows forms for says it can")
	}
	s2, err := c2.ResumeSession(ctx, s1.ID(), SessionConfig{Model: "m", BuiltinTools: NoBuiltinTools(),
		OnElicitation: func(context.Context, *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			return &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionAccept,
				Content: protocol.UIElicitationResponseContent{"db": json.RawMessage(`"sqlite"`)}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if !s2.Capabilities().UI.Elicitation {
		t.Errorf("the resume with OnElicitation answered %+v", s2.Capabilities())
	}
	testutil.Receive(t, "capabilities.changed on the first client", hangGuard, changed)
	if !s1.Capabilities().UI.Elicitation {
		t.Fatalf("after capabilities.changed: %+v", s1.Capabilities())
	}
	res, err := s1.Elicit(ctx, protocol.SessionUIElicitationParams{Message: "Which database?", RequestedSchema: protocol.UIElicitationSchema{
		Type: "object", Properties: map[string]protocol.UIElicitationSchemaProperty{"db": {Type: json.RawMessage(`"string"`)}}}})
	if err != nil || string(res.Content["db"]) != `"sqlite"` {
		t.Errorf("Elicit, answered by the other client: %+v, %v", res, err)
	}
}
