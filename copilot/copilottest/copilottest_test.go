package copilottest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/copilottest"
	"github.com/quorum-go/quorum/copilot/protocol"
)

// guard only stops a broken test from hanging; nothing asserts on time.
const guard = 30 * time.Second

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	t.Cleanup(cancel)
	return ctx
}

func session(t *testing.T, srv *copilottest.Server, cfg copilot.SessionConfig) *copilot.Session {
	t.Helper()
	s, err := srv.Client().NewSession(ctxFor(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ask(t *testing.T, s *copilot.Session, prompt string) string {
	t.Helper()
	a, err := s.Ask(ctxFor(t), prompt)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func count(evs []copilot.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func TestScriptedReplies(t *testing.T) {
	srv := copilottest.NewServer(t,
		copilottest.Model{ID: "echo", Respond: copilottest.Echo},
		copilottest.Model{ID: "fixed", Respond: copilottest.Say("always this")},
		copilottest.Model{ID: "streamed", Respond: copilottest.Stream("one two three four", 4, time.Millisecond)},
		copilottest.Model{ID: "func", Respond: func(t copilottest.Turn) copilottest.Response {
			return copilottest.Response{Text: fmt.Sprintf("turn %d: %d letters", t.Number, len(t.Prompt))}
		}},
	)
	for model, want := range map[string]string{"echo": "echo: hello", "fixed": "always this", "streamed": "one two three four", "func": "turn 1: 5 letters"} {
		var deltas []string
		s := session(t, srv, copilot.SessionConfig{Model: model})
		r, err := s.Stream(ctxFor(t), "hello", copilot.TurnHandlers{OnDelta: func(d string) { deltas = append(deltas, d) }})
		if err != nil || r.Text != want || strings.Join(deltas, "") != want {
			t.Errorf("%s: %q (deltas %q), %v; want %q", model, r.Text, deltas, err, want)
		}
		if model == "streamed" && (len(deltas) != 4 || count(srv.Events(s.ID()), protocol.EventAssistantMessageDelta) != 4) {
			t.Errorf("streamed in %d pieces, want 4", len(deltas))
		}
	}
}

func TestToolCallWithArguments(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m",
		Respond: copilottest.UseTool("add", map[string]int{"a": 2, "b": 3}, func(t copilottest.Turn) copilottest.Response {
			return copilottest.Response{Text: "sum is " + t.ToolResults[0].Text}
		})})
	type args struct{ A, B int }
	var got []args
	add := copilot.DefineTool("add", "adds", func(_ context.Context, a args) (string, error) {
		got = append(got, a)
		return fmt.Sprint(a.A + a.B), nil
	})
	s := session(t, srv, copilot.SessionConfig{Model: "m", Tools: []copilot.Tool{add}, Permissions: copilot.ApproveAll})
	if a := ask(t, s, "add"); a != "sum is 5" {
		t.Errorf("answer %q", a)
	}
	if len(got) != 1 || got[0] != (args{2, 3}) {
		t.Errorf("the handler got %+v", got)
	}
	if n := len(srv.Requests(protocol.MethodSessionToolsHandlePendingToolCall)); n != 1 {
		t.Errorf("%d tool results sent", n)
	}
}

// Every kind of permission request reaches the policy: the built-in
// tools' (write, read, shell, url), a client tool's, and any other kind
// through CallAsking (mcp, memory).
func TestPermissionRequestsOfEveryKind(t *testing.T) {
	dir := t.TempDir()
	calls := []copilottest.ToolCall{
		copilottest.Call(copilottest.BuiltinCreate, map[string]string{"path": "a.txt", "file_text": "old\n"}),
		copilottest.Call(copilottest.BuiltinEdit, map[string]string{"path": "a.txt", "old_str": "old", "new_str": "new"}),
		copilottest.Call(copilottest.BuiltinView, map[string]string{"path": "a.txt"}),
		copilottest.Call(copilottest.BuiltinBash, map[string]string{"command": "ls", "description": "list"}),
		copilottest.Call(copilottest.BuiltinWebFetch, map[string]string{"url": "https://example.com"}),
		copilottest.Call("mine", map[string]string{}),
		copilottest.CallAsking("github-list_issues", map[string]string{}, protocol.PermissionRequestMCP{
			Kind: copilot.PermissionKindMCP, ServerName: "github", ToolName: "list_issues", ToolTitle: "List issues", ReadOnly: true}),
		copilottest.CallAsking("memory", map[string]string{}, protocol.PermissionRequestMemory{Kind: copilot.PermissionKindMemory, Fact: "tabs"}),
	}
	var results []copilottest.ToolCallResult
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: func(t copilottest.Turn) copilottest.Response {
		if t.Call == 0 {
			return copilottest.Response{ToolCalls: calls}
		}
		results = t.ToolResults
		return copilottest.Response{Text: "done"}
	}})
	var kinds []string
	policy := func(_ context.Context, req copilot.PermissionRequest) (copilot.PermissionDecision, error) {
		kinds = append(kinds, req.Kind)
		return copilot.ApproveOnce(), nil
	}
	// No Description: the request must still carry its toolDescription.
	mine := copilot.Tool{Name: "mine", Handler: func(context.Context, copilot.ToolCall) (string, error) { return "ok", nil }}
	s := session(t, srv, copilot.SessionConfig{Model: "m", Permissions: policy, WorkingDirectory: dir, Tools: []copilot.Tool{mine}})
	ask(t, s, "go")
	want := []string{copilot.PermissionKindWrite, copilot.PermissionKindWrite, copilot.PermissionKindRead,
		copilot.PermissionKindShell, copilot.PermissionKindURL, copilot.PermissionKindCustomTool,
		copilot.PermissionKindMCP, copilot.PermissionKindMemory}
	if !slices.Equal(kinds, want) {
		t.Errorf("policy asked %v, want %v", kinds, want)
	}
	for _, r := range results {
		if !r.OK() {
			t.Errorf("%s failed: %s", r.Name, r.Error)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
}

func TestQuestionForTheUser(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m",
		Respond: copilottest.AskUser(copilottest.UserQuestion{Question: "Which colour?", Choices: []string{"red", "blue"}}, func(t copilottest.Turn) copilottest.Response {
			a, ok := t.UserAnswer()
			return copilottest.Response{Text: fmt.Sprintf("you said %s (%v)", a, ok)}
		})})
	cfg := copilot.SessionConfig{Model: "m"}
	var asked []string
	cfg.Handlers.UserInputRequest = func(_ context.Context, p *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
		asked = append(asked, p.Question)
		return &protocol.UserInputResponse{Answer: p.Choices[1]}, nil
	}
	if a := ask(t, session(t, srv, cfg), "paint it"); a != "you said blue (true)" {
		t.Errorf("answer %q", a)
	}
	if !slices.Equal(asked, []string{"Which colour?"}) {
		t.Errorf("asked %v", asked)
	}
}

func TestFormForTheUser(t *testing.T) {
	form := copilottest.Elicitation{Message: "Which database?", Properties: map[string]json.RawMessage{"db": json.RawMessage(`{"type":"string"}`)}, Required: []string{"db"}}
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m",
		Respond: copilottest.Elicit(form, func(t copilottest.Turn) copilottest.Response {
			return copilottest.Response{Text: t.Elicitation.Action + " " + string(t.Elicitation.Content["db"])}
		})})
	s := session(t, srv, copilot.SessionConfig{Model: "m",
		OnElicitation: func(_ context.Context, d *protocol.ElicitationRequestedData) (*protocol.UIElicitationResponse, error) {
			if d.Message != "Which database?" {
				return nil, errors.New("unexpected form " + d.Message)
			}
			return &protocol.UIElicitationResponse{Action: protocol.UIElicitationResponseActionAccept,
				Content: protocol.UIElicitationResponseContent{"db": json.RawMessage(`"postgres"`)}}, nil
		}})
	if a := ask(t, s, "set up"); a != `accept "postgres"` {
		t.Errorf("answer %q", a)
	}
	// A session that cannot fill in forms is not asked.
	if a := ask(t, session(t, srv, copilot.SessionConfig{Model: "m"}), "set up"); a != "cancel " {
		t.Errorf("without OnElicitation: %q", a)
	}
}

func TestSessionError(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: copilottest.Fail("rate_limit", "slow down")})
	_, err := session(t, srv, copilot.SessionConfig{Model: "m"}).Ask(ctxFor(t), "hi")
	if !errors.Is(err, copilot.ErrTurnFailed) || !strings.Contains(err.Error(), "slow down") {
		t.Errorf("err = %v", err)
	}
}

// A stalled turn, and a delayed one, end when the client gives up: the
// context's error, and the session works again after.
func TestStallAndDelayEndWithTheClientsContext(t *testing.T) {
	for name, first := range map[string]copilottest.Script{
		"stall": copilottest.Stall,
		"delay": copilottest.Delay(time.Hour, copilottest.Say("too late")),
	} {
		t.Run(name, func(t *testing.T) {
			srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: func(turn copilottest.Turn) copilottest.Response {
				if turn.Number == 1 {
					return first(turn)
				}
				return copilottest.Response{Text: "back"}
			}})
			s := session(t, srv, copilot.SessionConfig{Model: "m"})
			ctx, cancel := context.WithCancel(ctxFor(t))
			defer cancel()
			_, err := s.Stream(ctx, "first", copilot.TurnHandlers{OnEvent: func(e copilot.Event) {
				if e.Type == protocol.EventAssistantTurnStart {
					cancel() // the model has been asked: give up on it
				}
			}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			if a := ask(t, s, "second"); a != "back" {
				t.Errorf("after the abort: %q", a)
			}
		})
	}
}

func TestDropAndDuplicateEvents(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: copilottest.Stream("abcdef", 3, 0)})
	srv.DropEvents(protocol.EventAssistantMessageDelta)
	srv.DuplicateEvents(protocol.EventAssistantMessage)
	s := session(t, srv, copilot.SessionConfig{Model: "m"})
	var deltas int
	r, err := s.Stream(ctxFor(t), "go", copilot.TurnHandlers{OnDelta: func(string) { deltas++ }})
	if err != nil || r.Text != "abcdef" || deltas != 0 {
		t.Errorf("reply %q, %d deltas, %v", r.Text, deltas, err)
	}
	evs := srv.Events(s.ID())
	if count(evs, protocol.EventAssistantMessageDelta) != 0 || count(evs, protocol.EventAssistantMessage) != 2 {
		t.Errorf("events sent %v", evs)
	}
	srv.HealEvents()
	deltas = 0
	if _, err := s.Stream(ctxFor(t), "again", copilot.TurnHandlers{OnDelta: func(string) { deltas++ }}); err != nil || deltas != 3 {
		t.Errorf("healed: %d deltas, %v", deltas, err)
	}
}

func TestCrashAndCloseConnections(t *testing.T) {
	srv := copilottest.NewServer(t,
		copilottest.Model{ID: "crash", Respond: copilottest.Crash("partial")},
		copilottest.Model{ID: "ok", Respond: copilottest.Echo})
	_, err := session(t, srv, copilot.SessionConfig{Model: "crash"}).Ask(ctxFor(t), "hi")
	if !errors.Is(err, copilot.ErrStopped) {
		t.Fatalf("a crash mid-turn: %v", err)
	}
	// The server is still there: a new connection works, until
	// CloseConnections ends it too.
	c, err := copilot.Connect(ctxFor(t), srv.Dial(), copilot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession(ctxFor(t), copilot.SessionConfig{Model: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := s.Ask(ctxFor(t), "again"); a != "echo: again" || err != nil {
		t.Fatalf("%q %v", a, err)
	}
	srv.CloseConnections()
	if _, err := s.Ask(ctxFor(t), "once more"); !errors.Is(err, copilot.ErrStopped) {
		t.Errorf("after CloseConnections: %v", err)
	}
}

// The case an outside test module found hanging: a tool's handler blocked
// on its context while the server drops the connection. The turn returns
// ErrStopped (the connection's end), not the caller's context error, and
// the handler's context ends with it — no context of the caller's ends
// here but the test's guard.
func TestCloseConnectionsReleasesABlockedHandler(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m",
		Respond: copilottest.UseTool("wait", nil, func(copilottest.Turn) copilottest.Response { return copilottest.Response{Text: "done"} })})
	started := make(chan struct{})
	released := make(chan error, 1)
	wait := copilot.Tool{Name: "wait", Description: "waits", Handler: func(ctx context.Context, _ copilot.ToolCall) (string, error) {
		close(started)
		<-ctx.Done()
		released <- context.Cause(ctx)
		return "", ctx.Err()
	}}
	s := session(t, srv, copilot.SessionConfig{Model: "m", Tools: []copilot.Tool{wait}, Permissions: copilot.ApproveAll})
	ctx := ctxFor(t)
	errc := make(chan error, 1)
	go func() {
		_, err := s.Ask(ctx, "wait")
		errc <- err
	}()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the tool was never called")
	}
	srv.CloseConnections()
	select {
	case err := <-errc:
		if !errors.Is(err, copilot.ErrStopped) || !errors.Is(err, copilot.ErrConnectionClosed) || errors.Is(err, context.Canceled) {
			t.Errorf("Ask after CloseConnections: %v, want ErrStopped wrapping ErrConnectionClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("Ask is still blocked on its tool after CloseConnections")
	}
	select {
	case cause := <-released:
		if !errors.Is(cause, copilot.ErrStopped) {
			t.Errorf("the handler's context ended with %v, want the connection's end", cause)
		}
	case <-ctx.Done():
		t.Fatal("the tool's context did not end with the connection")
	}
}

func TestRequestsAndSessions(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: copilottest.Echo})
	a := session(t, srv, copilot.SessionConfig{Model: "m"})
	b := session(t, srv, copilot.SessionConfig{Model: "m"})
	ask(t, a, "to a")
	ask(t, b, "to b")
	want := []string{a.ID(), b.ID()}
	slices.Sort(want)
	if got := srv.Sessions(); !slices.Equal(got, want) {
		t.Errorf("sessions %v, want %v", got, want)
	}
	var prompts []string
	for _, r := range srv.Requests(protocol.MethodSessionSend) {
		var p protocol.SessionSendParams
		if err := r.Decode(&p); err != nil || r.Conn != 1 {
			t.Fatalf("%+v: %v", r, err)
		}
		prompts = append(prompts, p.SessionID[:4]+p.Prompt)
	}
	if !slices.Equal(prompts, []string{a.ID()[:4] + "to a", b.ID()[:4] + "to b"}) {
		t.Errorf("sends %v", prompts)
	}
	if err := a.Destroy(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	if got := srv.Sessions(); !slices.Equal(got, []string{b.ID()}) {
		t.Errorf("after destroying a: %v", got)
	}
	if len(srv.Requests()) < 5 || srv.Requests()[0].Method != protocol.MethodConnect {
		t.Errorf("all requests: %v", srv.Requests())
	}
	if err := (copilottest.Request{Method: "x"}).Decode(&struct{}{}); err == nil {
		t.Error("decoding absent params did not fail")
	}
}

func TestSevenConcurrentSessions(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: copilottest.Echo})
	var wg sync.WaitGroup
	errs := make(chan error, 7)
	for i := range 7 {
		wg.Go(func() {
			s, err := srv.Client().NewSession(ctxFor(t), copilot.SessionConfig{Model: "m"})
			if err != nil {
				errs <- err
				return
			}
			prompt := fmt.Sprintf("session %d", i)
			if a, err := s.Ask(ctxFor(t), prompt); err != nil || a != "echo: "+prompt {
				errs <- fmt.Errorf("%q: %q, %v", prompt, a, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(srv.Sessions()); n != 7 {
		t.Errorf("%d sessions alive", n)
	}
}

func TestInvalidModels(t *testing.T) {
	for name, opts := range map[string][]copilottest.Option{
		"no id":      {copilottest.Model{Respond: copilottest.Echo}},
		"no respond": {copilottest.Model{ID: "m"}},
		"twice":      {copilottest.Model{ID: "m", Respond: copilottest.Echo}, copilottest.Model{ID: "m", Respond: copilottest.Echo}},
		"none":       {copilottest.LoggedOut()},
	} {
		if _, err := copilottest.Start(ctxFor(t), opts...); !errors.Is(err, copilottest.ErrInvalidModel) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// A script sees the session as the model would: its tools, system
// message, folder and earlier turns.
func TestTurnSeesTheSession(t *testing.T) {
	var mu sync.Mutex
	var turns []copilottest.Turn
	srv := copilottest.NewServer(t, copilottest.Model{ID: "m", Respond: func(turn copilottest.Turn) copilottest.Response {
		mu.Lock()
		turns = append(turns, turn)
		mu.Unlock()
		return copilottest.Response{Text: "reply " + turn.Prompt}
	}})
	dir := t.TempDir()
	tool := copilot.Tool{Name: "lookup", Description: "looks up", Handler: func(context.Context, copilot.ToolCall) (string, error) { return "", nil }}
	s := session(t, srv, copilot.SessionConfig{Model: "m", SystemMessage: "Be brief.", WorkingDirectory: dir, Tools: []copilot.Tool{tool}})
	ask(t, s, "one")
	ask(t, s, "two")
	mu.Lock()
	defer mu.Unlock()
	if len(turns) != 2 {
		t.Fatalf("%d model calls", len(turns))
	}
	last := turns[1]
	if last.Model != "m" || last.SessionID != s.ID() || last.Prompt != "two" || last.Number != 2 || last.Call != 0 ||
		!strings.Contains(last.SystemMessage, "Be brief.") || last.WorkingDirectory != dir || !slices.Equal(last.Tools, []string{"lookup"}) {
		t.Errorf("the second call saw %+v", last)
	}
	if len(last.History) != 1 || last.History[0] != (copilottest.Exchange{Prompt: "one", Response: "reply one"}) {
		t.Errorf("history %+v", last.History)
	}
}

func TestLoggedOut(t *testing.T) {
	srv := copilottest.NewServer(t, copilottest.LoggedOut(), copilottest.Model{ID: "m", Respond: copilottest.Echo})
	if err := srv.Client().RequireAuth(ctxFor(t)); !errors.Is(err, copilot.ErrNotAuthenticated) {
		t.Errorf("RequireAuth: %v", err)
	}
	if _, err := session(t, srv, copilot.SessionConfig{Model: "m"}).Ask(ctxFor(t), "hi"); !errors.Is(err, copilot.ErrTurnFailed) {
		t.Errorf("a turn: %v", err)
	}
}
