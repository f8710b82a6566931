package quorum_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// turnLog records every turn the simulated models take.
type turnLog struct {
	mu    sync.Mutex
	turns []sim.Turn
}

func (l *turnLog) wrap(models []sim.Model) []sim.Model {
	out := make([]sim.Model, len(models))
	for i, m := range models {
		respond := m.Respond
		m.Respond = func(t sim.Turn) sim.Response {
			l.mu.Lock()
			l.turns = append(l.turns, t)
			l.mu.Unlock()
			return respond(t)
		}
		out[i] = m
	}
	return out
}

// of returns the turns of phase, by model, in the order they came.
func (l *turnLog) of(phase quorum.Phase) map[string][]sim.Turn {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string][]sim.Turn{}
	for _, t := range l.turns {
		if strings.HasPrefix(t.Prompt, quorum.PromptMarker(phase)+"\n") {
			out[t.Model] = append(out[t.Model], t)
		}
	}
	return out
}

func chatConfig() quorum.ChatConfig {
	return quorum.ChatConfig{Config: quorum.Config{Models: simquorum.Participants, Moderator: simquorum.Moderator}}
}

func TestChatFollowUpGoesToTheSameSessionsWithThePreviousSynthesis(t *testing.T) {
	var log turnLog
	e := newEnv(t, log.wrap(participants())...)
	ctx := ctxGuard(t)
	c, err := quorum.NewChat(e.b, chatConfig())
	if err != nil {
		t.Fatal(err)
	}
	r1, err := c.Discuss(ctx, "Should we shard the database?")
	if err != nil {
		t.Fatal(err)
	}
	if r1.Status != quorum.RoundOK || r1.Conclusion == "" || r1.N != 1 {
		t.Fatalf("round 1: status %q, n %d, conclusion %q", r1.Status, r1.N, r1.Conclusion)
	}
	if r1.Sent != r1.Prompt {
		t.Errorf("the first round's prompt carries context: %q", r1.Sent)
	}
	r2, err := c.Discuss(ctx, "And what about read replicas?")
	if err != nil {
		t.Fatal(err)
	}
	if r2.N != 2 || r2.Discuss.Question != "And what about read replicas?" {
		t.Errorf("round 2: n %d, question %q", r2.N, r2.Discuss.Question)
	}
	if !strings.Contains(r2.Sent, r1.Conclusion) || !strings.HasPrefix(r2.Sent, "And what about read replicas?\n\n") {
		t.Errorf("round 2's prompt does not carry round 1's synthesis after the follow-up:\n%s", r2.Sent)
	}
	answers := log.of(quorum.PhaseAnswer)
	for _, m := range simquorum.Participants {
		ts := answers[m]
		if len(ts) != 2 {
			t.Fatalf("%s answered %d times, want 2", m, len(ts))
		}
		if ts[0].SessionID != ts[1].SessionID || r1.Sessions[m] != ts[0].SessionID || r2.Sessions[m] != ts[0].SessionID {
			t.Errorf("%s: the follow-up went to session %s, the first question to %s (recorded %s, %s)", m, ts[1].SessionID, ts[0].SessionID, r1.Sessions[m], r2.Sessions[m])
		}
		if ts[1].Number != 2 || len(ts[1].History) != 1 || !strings.Contains(ts[1].History[0].Prompt, "Should we shard the database?") {
			t.Errorf("%s: the follow-up's session does not hold the first exchange: turn %d, history %+v", m, ts[1].Number, ts[1].History)
		}
		if !strings.Contains(ts[1].Prompt, "read replicas") || !strings.Contains(ts[1].Prompt, "BEGIN ROUND 1") {
			t.Errorf("%s: the follow-up's prompt: %q", m, ts[1].Prompt)
		}
	}
	// Reviews and the synthesis run in fresh sessions, one turn each.
	for _, p := range []quorum.Phase{quorum.PhaseReview, quorum.PhaseSynthesis} {
		for m, ts := range log.of(p) {
			for _, tt := range ts {
				if tt.Number != 1 {
					t.Errorf("%s's %s turn was turn %d of its session, want a fresh session", m, p, tt.Number)
				}
			}
		}
	}
	sum := r1.Usage
	sum.Add(r2.Usage)
	if u := c.Usage(); u != sum {
		t.Errorf("chat usage %+v, want the rounds' sum", u)
	}
	if live := e.srv.LiveSessions(); len(live) != len(simquorum.Participants) {
		t.Errorf("between rounds %d sessions are live, want the %d kept ones: %v", len(live), len(simquorum.Participants), live)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	e.requireClean(t)
	if _, err := c.Discuss(ctx, "more?"); !errors.Is(err, quorum.ErrChatClosed) {
		t.Errorf("a round after Close: %v, want ErrChatClosed", err)
	}
}

func TestChatCancelledRoundIsInterruptedAndTheChatGoesOn(t *testing.T) {
	var log turnLog
	hang := make(chan struct{}, 1)
	models := participants()
	for i, m := range models {
		if m.ID == "sim-gamma" {
			models[i] = override("sim-gamma", quorum.PhaseAnswer, func(tt sim.Turn) sim.Response {
				if tt.Number == 1 {
					hang <- struct{}{}
					return sim.Response{Hang: true}
				}
				return simquorum.Answer(tt)
			})
		}
	}
	e := newEnv(t, log.wrap(models)...)
	ctx := ctxGuard(t)
	rctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	var once sync.Once
	var c *quorum.Chat
	finished := map[string]bool{}
	cfg := chatConfig()
	cfg.Progress = func(ev quorum.Progress) {
		if ev.Kind != quorum.ModelFinished || ev.Phase != quorum.PhaseAnswer {
			return
		}
		mu.Lock()
		finished[ev.Model] = true
		both := finished["sim-alpha"] && finished["sim-beta"]
		mu.Unlock()
		if both {
			once.Do(func() {
				<-hang // gamma's turn hangs too
				// Reading the sessions never waits for a turn.
				if n := len(c.Sessions()); n != 3 {
					t.Errorf("%d sessions while the round runs, want 3", n)
				}
				cancel()
			})
		}
	}
	var err error
	c, err = quorum.NewChat(e.b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	r1, err := c.Discuss(rctx, "Should we shard the database?")
	if err == nil {
		t.Fatal("the cancelled round returned no error")
	}
	if r1 == nil || r1.Status != quorum.RoundInterrupted || r1.Discuss == nil || len(r1.Discuss.Answers) != 2 {
		t.Fatalf("the cancelled round: %+v", r1)
	}
	r2, err := c.Discuss(ctx, "Then what should we do first?")
	if err != nil {
		t.Fatal(err)
	}
	if r2.Status != quorum.RoundOK {
		t.Errorf("the round after the cancelled one: %s %s", r2.Status, r2.Error)
	}
	g := log.of(quorum.PhaseAnswer)["sim-gamma"]
	if len(g) != 2 || g[0].SessionID != g[1].SessionID {
		t.Fatalf("sim-gamma's answers: %d turns, sessions %v", len(g), g)
	}
	if !strings.Contains(r2.Sent, "nothing: the round interrupted") {
		t.Errorf("round 2's prompt does not say round 1 was interrupted:\n%s", r2.Sent)
	}
	if len(c.Rounds()) != 2 {
		t.Errorf("%d rounds, want 2", len(c.Rounds()))
	}
}

func TestChatAskGoesToOneModelsSessionAndOthersAreToldLater(t *testing.T) {
	var log turnLog
	e := newEnv(t, log.wrap(participants())...)
	ctx := ctxGuard(t)
	var p progress
	cfg := chatConfig()
	cfg.Progress = p.fn
	c, err := quorum.NewChat(e.b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Ask(ctx, "sim-unknown", "hi"); !errors.Is(err, quorum.ErrInvalidConfig) {
		t.Errorf("asking a model not in the chat: %v", err)
	}
	r1, err := c.Discuss(ctx, "Should we shard the database?")
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Ask(ctx, "sim-beta", "Why did you say that?")
	if err != nil {
		t.Fatal(err)
	}
	if a.Ask == nil || a.Ask.Text == "" || a.Conclusion != a.Ask.Text || a.Kind != quorum.RoundAsk {
		t.Fatalf("ask round: %+v", a)
	}
	var deltas int
	for _, ev := range p.all() {
		if ev.Kind == quorum.Delta && ev.Phase == quorum.PhaseAsk && ev.Model == "sim-beta" {
			deltas++
		}
	}
	if deltas == 0 {
		t.Error("the ask round streamed nothing to Progress")
	}
	var beta []sim.Turn
	log.mu.Lock()
	for _, tt := range log.turns {
		if tt.Model == "sim-beta" && tt.SessionID == a.Sessions["sim-beta"] {
			beta = append(beta, tt)
		}
	}
	log.mu.Unlock()
	if len(beta) != 2 || beta[1].Number != 2 {
		t.Fatalf("sim-beta's kept session took %d turns, want the answer and the question", len(beta))
	}
	// sim-alpha did not see the ask: the next round tells it.
	r3, err := c.Discuss(ctx, "So, shard or not?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r3.Sent, "Why did you say that?") {
		t.Errorf("round 3's prompt does not carry the ask round:\n%s", r3.Sent)
	}
	// Nor round 1's synthesis: it came after sim-alpha's answer, and the
	// ask that carried it went to sim-beta alone.
	if !strings.Contains(r3.Sent, "BEGIN ROUND 1") || !strings.Contains(r3.Sent, r1.Conclusion) {
		t.Errorf("round 3's prompt does not carry round 1's synthesis, which sim-alpha never saw:\n%s", r3.Sent)
	}
}

func TestChatIsSavedAndResumedInTheSameSessions(t *testing.T) {
	var log turnLog
	e := newEnv(t, log.wrap(participants())...)
	ctx := ctxGuard(t)
	cfg := chatConfig()
	cfg.Dir = filepath.Join(t.TempDir(), "state", "chats")
	c, err := quorum.NewChat(e.b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := c.Discuss(ctx, "Should we shard the database?")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cfg.Dir, c.Path()} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := fs.FileMode(0o600)
		if st.IsDir() {
			want = fs.ModeDir | 0o700
		}
		if st.Mode() != want {
			t.Errorf("%s has mode %v, want %v", p, st.Mode(), want)
		}
	}
	if err := c.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	saved, err := quorum.LoadChat(cfg.Dir, c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Rounds) != 1 || saved.Rounds[0].Conclusion != r1.Conclusion || saved.Closed || len(saved.Sessions) != 3 {
		t.Fatalf("saved chat: %+v", saved)
	}

	c2, err := quorum.ResumeChat(ctx, e.b, quorum.ChatConfig{Dir: cfg.Dir}, c.ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c2.Sessions() {
		if !s.Resumed || s.ID != r1.Sessions[s.Model] {
			t.Errorf("after ResumeChat %s's session is %+v, want %s resumed", s.Model, s, r1.Sessions[s.Model])
		}
	}
	r2, err := c2.Discuss(ctx, "And read replicas?")
	if err != nil {
		t.Fatal(err)
	}
	if r2.N != 2 || strings.Contains(r2.Sent, "BEGIN ROUND 0") || !strings.Contains(r2.Sent, r1.Conclusion) {
		t.Errorf("the resumed chat's round: n %d, sent %q", r2.N, r2.Sent)
	}
	for m, ts := range log.of(quorum.PhaseAnswer) {
		if len(ts) != 2 || ts[1].SessionID != ts[0].SessionID || len(ts[1].History) != 1 {
			t.Errorf("%s's follow-up after resuming did not reach its session with the first exchange: %+v", m, ts)
		}
	}
	if err := c2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	e.requireClean(t)

	// Closed: the sessions are gone; a resumed chat opens new ones and
	// tells them every saved round.
	c3, err := quorum.ResumeChat(ctx, e.b, quorum.ChatConfig{Dir: cfg.Dir}, c.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close(ctx)
	if ss := c3.Sessions(); len(ss) != 0 {
		t.Errorf("a closed chat's sessions were resumed: %+v", ss)
	}
	r3, err := c3.Discuss(ctx, "Summing up?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r3.Sent, "BEGIN ROUND 1") || !strings.Contains(r3.Sent, "BEGIN ROUND 2") {
		t.Errorf("new sessions were not told every saved round:\n%s", r3.Sent)
	}
	list, bad, err := quorum.ListChats(cfg.Dir)
	if err != nil || len(bad) != 0 || len(list) != 1 || list[0].ID != c.ID() || len(list[0].Rounds) != 3 {
		t.Errorf("ListChats: %v %v %+v", err, bad, list)
	}
}

func TestLoadChatMarksARoundThatNeverEndedAndRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	good := `{"type":"chat","time":"2026-11-25T09:00:00Z","chat":{"id":"c1","createdAt":"2026-11-25T09:00:00Z","models":["a","b"]}}
{"type":"started","time":"2026-11-25T09:00:01Z","round":{"n":1,"kind":"discuss","prompt":"q?","sent":"","models":["a","b"],"status":"","conclusion":"","sessions":null,"startedAt":"2026-11-25T09:00:01Z","elapsedMs":0,"usage":{"calls":0,"inputTokens":0,"outputTokens":0}}}
{"type":"round","ti`
	if err := os.WriteFile(filepath.Join(dir, "c1.jsonl"), []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	sc, err := quorum.LoadChat(dir, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Rounds) != 1 || sc.Rounds[0].Status != quorum.RoundInterrupted || !strings.Contains(sc.Rounds[0].Error, "stopped during this round") {
		t.Errorf("a round that never ended: %+v", sc.Rounds)
	}
	if _, err := quorum.LoadChat(dir, "nope"); !errors.Is(err, quorum.ErrChatNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing chat: %v", err)
	}
	if _, err := quorum.LoadChat(dir, "../etc/passwd"); !errors.Is(err, quorum.ErrInvalidConfig) {
		t.Errorf("a path as an id: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c2.jsonl"), []byte("not json\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := quorum.LoadChat(dir, "c2"); !errors.Is(err, quorum.ErrChatFile) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a broken chat file: %v", err)
	}
	if _, err := quorum.NewChat(nil, chatConfig()); !errors.Is(err, quorum.ErrInvalidConfig) {
		t.Errorf("NewChat without a backend: %v", err)
	}
	if _, err := quorum.NewChat(quorum.Copilot(nil), quorum.ChatConfig{}); !errors.Is(err, quorum.ErrInvalidConfig) {
		t.Errorf("NewChat without models: %v", err)
	}
}

func TestChatDirFollowsXDGStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if d, err := quorum.ChatDir(); err != nil || d != "/x/state/quorum/chats" {
		t.Errorf("ChatDir = %q, %v", d, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if d, err := quorum.ChatDir(); err != nil || d != "/home/u/.local/state/quorum/chats" {
		t.Errorf("ChatDir with a relative XDG_STATE_HOME = %q, %v", d, err)
	}
}

// SetModels may be called from any goroutine (the Chat's concurrency
// contract): under -race, calls at once, and beside Models, are safe.
func TestChatSetModelsFromManyGoroutines(t *testing.T) {
	e := newEnv(t, participants()...)
	c, err := quorum.NewChat(e.b, chatConfig())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			models := simquorum.Participants[:2+i%(len(simquorum.Participants)-1)]
			if err := c.SetModels(models, ""); err != nil {
				t.Error(err)
			}
			c.Models()
		}()
	}
	wg.Wait()
	if got, _ := c.Models(); len(got) == 0 {
		t.Fatal("no models after SetModels")
	}
}

// After an interrupted round, the next round tells again what the
// interrupted round's prompt carried: a turn cancelled early may never
// have delivered it.
func TestChatAfterAnInterruptedRoundRepeatsWhatItsPromptCarried(t *testing.T) {
	hang := make(chan struct{}, 1)
	models := participants()
	for i, m := range models {
		if m.ID == "sim-gamma" {
			models[i] = override("sim-gamma", quorum.PhaseAnswer, func(tt sim.Turn) sim.Response {
				if tt.Number == 2 {
					hang <- struct{}{}
					return sim.Response{Hang: true}
				}
				return simquorum.Answer(tt)
			})
		}
	}
	e := newEnv(t, models...)
	ctx := ctxGuard(t)
	c, err := quorum.NewChat(e.b, chatConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	r1, err := c.Discuss(ctx, "Should we shard the database?")
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		<-hang
		cancel()
	}()
	r2, _ := c.Discuss(rctx, "And read replicas?")
	if r2 == nil || r2.Status != quorum.RoundInterrupted || !strings.Contains(r2.Sent, r1.Conclusion) {
		t.Fatalf("round 2: %+v", r2)
	}
	r3, err := c.Discuss(ctx, "So what first?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r3.Sent, "BEGIN ROUND 1") || !strings.Contains(r3.Sent, r1.Conclusion) || !strings.Contains(r3.Sent, "BEGIN ROUND 2") {
		t.Errorf("round 3's prompt does not tell round 1's conclusion again, after the interrupted round 2:\n%s", r3.Sent)
	}
}
