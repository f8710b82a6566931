package copilot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/testing/testutil"
)

func TestHandshakeModelsAuth(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m1", sim.Echo), model("m2", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	if info := c.Info(); info.ProtocolVersion != 3 || info.Version != sim.Version {
		t.Errorf("info = %+v", info)
	}
	ms, err := c.Models(ctx)
	if err != nil || len(ms) != 2 || ms[0].ID != "m1" || len(ms[0].Raw) == 0 {
		t.Fatalf("models = %+v, %v", ms, err)
	}
	p, err := c.Ping(ctx, "hi")
	if _, terr := time.Parse(time.RFC3339, p.Timestamp); err != nil || p.Message != "pong: hi" || terr != nil {
		t.Fatalf("ping = %+v, %v", p, err)
	}
	if err := c.RequireAuth(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestNotAuthenticatedSaysHowToLogIn(t *testing.T) {
	c, _ := simClient(t, sim.Options{Unauthenticated: true})
	err := c.RequireAuth(testutil.Context(t, hangGuard))
	if !errors.Is(err, ErrNotAuthenticated) || !strings.Contains(err.Error(), "copilot login") {
		t.Fatalf("err = %v", err)
	}
}

func TestProtocolMismatch(t *testing.T) {
	srv := sim.NewServer(sim.Options{ProtocolVersion: 4})
	defer srv.Close()
	_, err := Connect(testutil.Context(t, hangGuard), srv.Dial(), Options{})
	var ve *VersionError
	if !errors.Is(err, ErrProtocolVersion) || !errors.As(err, &ve) || ve.Got != 4 || ve.Want != 3 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "4") || !strings.Contains(err.Error(), "3") {
		t.Errorf("message names neither version: %v", err)
	}
}

func TestPingFallback(t *testing.T) {
	c, srv := simClient(t, sim.Options{NoConnect: true})
	if c.Info().ProtocolVersion != 3 || srv.Calls("ping") != 1 {
		t.Fatalf("info = %+v, pings = %d", c.Info(), srv.Calls("ping"))
	}
}

func TestStreamDeltasAndUsage(t *testing.T) {
	text := "The quick brown fox jumps over the lazy dog, twice over."
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Always(sim.Response{
		Text: text, Chunks: 5, Usage: &sim.Usage{InputTokens: 11, OutputTokens: 7},
	}))}})
	ctx := testutil.Context(t, hangGuard)
	// Every event reaches SessionConfig.OnEvent, session.start first,
	// whether it came before the turn (read between turns) or in it.
	var seen eventTypes
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", OnEvent: seen.on})
	if err != nil {
		t.Fatal(err)
	}
	var deltas []string
	var types []string
	r, err := s.Stream(ctx, "go", TurnHandlers{
		OnDelta: func(d string) { deltas = append(deltas, d) },
		OnEvent: func(e Event) { types = append(types, e.Type) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != text || strings.Join(deltas, "") != text || len(deltas) != 5 {
		t.Fatalf("text %q, %d deltas", r.Text, len(deltas))
	}
	if r.Usage.InputTokens != 11 || r.Usage.OutputTokens != 7 || r.MessageID == "" {
		t.Errorf("reply = %+v", r)
	}
	if first := seen.first(); first != protocol.EventSessionStart {
		t.Errorf("first event = %s, want session.start (it must not be lost)", first)
	}
	if types[len(types)-1] != protocol.EventSessionIdle {
		t.Errorf("last event = %s", types[len(types)-1])
	}
	// A second turn on the same session.
	if a, err := s.Ask(ctx, "again"); err != nil || a != text {
		t.Fatalf("second turn: %q %v", a, err)
	}
}

func TestAssignedIDSession(t *testing.T) {
	for _, order := range []sim.StartOrder{sim.StartBefore, sim.StartAfter} {
		t.Run(order.String(), func(t *testing.T) {
			c, _ := simClient(t, sim.Options{StartOrder: order, Models: []sim.Model{model("m", sim.Echo)}})
			ctx := testutil.Context(t, hangGuard)
			var seen eventTypes
			s, err := c.NewSession(ctx, SessionConfig{Model: "m", AssignedID: true, OnEvent: seen.on})
			if err != nil {
				t.Fatal(err)
			}
			a, err := s.Stream(ctx, "x", TurnHandlers{})
			if err != nil || a.Text != "echo: x" || seen.first() != protocol.EventSessionStart {
				t.Fatalf("%q %v first=%s", a.Text, err, seen.first())
			}
		})
	}
}

// An assigned session's logger names the id the CLI assigned, not the one
// prepared before the CLI answered.
func TestAssignedIDSessionLogsItsID(t *testing.T) {
	srv := sim.NewServer(sim.Options{Models: []sim.Model{model("m", sim.UseTool("t", nil, reportTool))}})
	defer srv.Close()
	var buf testutil.Buffer
	logger := zerolog.New(&buf)
	ctx := testutil.Context(t, hangGuard)
	c, err := Connect(ctx, srv.Dial(), Options{Logger: &logger})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	panicky := ToolStage{Name: "panicky", Wrap: func(next ToolHandler) ToolHandler {
		return func(context.Context, ToolCall) (string, error) { panic("stage bug") }
	}}
	s, err := c.NewSession(ctx, SessionConfig{Model: "m", AssignedID: true, Permissions: ApproveAll, Stages: []ToolStage{panicky},
		Tools: []Tool{{Name: "t", Handler: func(context.Context, ToolCall) (string, error) { return "ok", nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	s.log.Info().Msg("probe")
	if _, err := s.Ask(ctx, "use the tool"); err != nil { // the stage's panic is logged
		t.Fatal(err)
	}
	for _, msg := range []string{"probe", "a tool stage panicked; skipping it"} {
		var found bool
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var line struct{ Session, Message string }
			if json.Unmarshal([]byte(l), &line) == nil && line.Message == msg {
				found = true
				if line.Session != s.ID() {
					t.Errorf("%q names session %q, want %q", msg, line.Session, s.ID())
				}
			}
		}
		if !found {
			t.Errorf("no %q line in the log: %s", msg, buf.String())
		}
	}
}

func TestUnknownModelError(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	_, err := c.NewSession(testutil.Context(t, hangGuard), SessionConfig{Model: "nope"})
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v", err)
	}
	if n := c.Router().Stats().Sessions; n != 0 {
		t.Errorf("%d routes left after a failed create", n)
	}
}

func TestSessionErrorCarriesMessage(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Always(sim.Fail("model_call", "upstream said 500")))}})
	ctx := testutil.Context(t, hangGuard)
	s, _ := c.NewSession(ctx, SessionConfig{Model: "m"})
	_, err := s.Ask(ctx, "x")
	if !errors.Is(err, ErrTurnFailed) || !strings.Contains(err.Error(), "upstream said 500") {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelAbortsTurnAndSessionRecovers(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Sequence(
		sim.Response{Text: "partial answer", Hang: true}, sim.Text("second"),
	))}})
	s, _ := c.NewSession(testutil.Context(t, hangGuard), SessionConfig{Model: "m"})
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	started := make(chan struct{})
	var once sync.Once
	errc := make(chan error, 1)
	go func() {
		_, err := s.Stream(ctx, "x", TurnHandlers{OnDelta: func(string) { once.Do(func() { close(started) }) }})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	a, err := s.Ask(testutil.Context(t, hangGuard), "y") // waits for the abort, which runs in the background
	if err != nil || a != "second" {
		t.Fatalf("next turn: %q %v", a, err)
	}
	if srv.Calls("session.abort") != 1 {
		t.Fatalf("aborts = %d, want 1", srv.Calls("session.abort"))
	}
}

func TestDestroyLeavesNothing(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, _ := c.NewSession(ctx, SessionConfig{Model: "m"})
	if len(srv.LiveSessions()) != 1 {
		t.Fatal("not created")
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal("destroy is not idempotent:", err)
	}
	if n := len(srv.LiveSessions()); n != 0 {
		t.Fatalf("%d sessions left on the server", n)
	}
	if n := c.Router().Stats().Sessions; n != 0 {
		t.Fatalf("%d routes left", n)
	}
}

func TestResumeSession(t *testing.T) {
	c, _ := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	ctx := testutil.Context(t, hangGuard)
	s, _ := c.NewSession(ctx, SessionConfig{Model: "m"})
	s.Close() // deregister locally; the session lives on in the CLI
	r, err := c.ResumeSession(ctx, s.ID(), SessionConfig{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := r.Ask(ctx, "again"); err != nil || a != "echo: again" {
		t.Fatalf("%q %v", a, err)
	}
	if _, err := c.ResumeSession(ctx, "no-such-session", SessionConfig{Model: "m"}); err == nil {
		t.Fatal("resumed a session that does not exist")
	}
}

// Eight sessions on different models stream at once, each getting its own
// text.
func TestConcurrentSessions(t *testing.T) {
	var models []sim.Model
	for i := 0; i < 8; i++ {
		id := fmt.Sprint("model-", i)
		models = append(models, model(id, func(t sim.Turn) sim.Response {
			return sim.Response{Text: strings.Repeat(t.Model+" says "+t.Prompt+". ", 20), ChunkSize: 7}
		}))
	}
	c, srv := simClient(t, sim.Options{Models: models})
	ctx := testutil.Context(t, hangGuard)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprint("model-", i)
			s, err := c.NewSession(ctx, SessionConfig{Model: id})
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Destroy(context.Background())
			var streamed strings.Builder
			r, err := s.Stream(ctx, fmt.Sprint("q", i), TurnHandlers{OnDelta: func(d string) { streamed.WriteString(d) }})
			want := strings.Repeat(id+" says "+fmt.Sprint("q", i)+". ", 20)
			if err != nil || r.Text != want || streamed.String() != want {
				t.Errorf("%s: %v, got %.60q", id, err, r.Text)
			}
		}(i)
	}
	wg.Wait()
	if len(srv.LiveSessions()) != 0 {
		t.Errorf("sessions left: %v", srv.LiveSessions())
	}
}

// Cancelled while session.send waits for its answer: the turn, which may
// be running, is aborted, and the session's next turn is clean.
func TestCancelDuringSendAbortsTurn(t *testing.T) {
	started := make(chan struct{}, 1)
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", func(t sim.Turn) sim.Response {
		if t.Number == 1 {
			started <- struct{}{}
			return sim.Hang()
		}
		return sim.Text("fresh")
	})}})
	s, _ := c.NewSession(testutil.Context(t, hangGuard), SessionConfig{Model: "m"})
	ctx, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	go func() { <-started; cancel() }()
	s.Stream(ctx, "hi", TurnHandlers{}) // cancelled during the send or the turn
	if a, err := s.Ask(testutil.Context(t, hangGuard), "again"); err != nil || a != "fresh" {
		t.Fatalf("next turn: %q %v", a, err)
	}
	if srv.Calls("session.abort") != 1 {
		t.Fatalf("aborts = %d, want 1", srv.Calls("session.abort"))
	}
}

// A Destroy that failed can be retried.
func TestDestroyRetries(t *testing.T) {
	c, srv := simClient(t, sim.Options{Models: []sim.Model{model("m", sim.Echo)}})
	s, _ := c.NewSession(testutil.Context(t, hangGuard), SessionConfig{Model: "m"})
	dead, cancel := context.WithCancel(testutil.Context(t, hangGuard))
	cancel()
	if err := s.Destroy(dead); err == nil {
		t.Fatal("destroy with a dead context succeeded")
	}
	if err := s.Destroy(testutil.Context(t, hangGuard)); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.LiveSessions()); n != 0 {
		t.Fatalf("%d sessions left on the server", n)
	}
}
