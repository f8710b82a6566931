package quorum_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/quorum"
)

// crashQ is the question of the round during which the CLI is killed.
const crashQ = "And what about testing?"

// questionOf is the question of an answer-phase prompt: the line after
// "Question:", as chatPanelist reads it.
func questionOf(prompt string) string {
	_, q, _ := strings.Cut(prompt, "Question:\n")
	q, _, _ = strings.Cut(q, "\n")
	return strings.TrimSpace(q)
}

// crashedChat is a chat of two models through the real Copilot CLI,
// saved in dir, whose CLI was killed (SIGKILL) during round 2 — once the
// model API held every model's answer request of the round, hung — and
// whose client is closed. Round 1 ended normally. start starts another
// CLI in the same environment (the same COPILOT_HOME, as for a user who
// runs quorum chat --resume after the crash).
type crashedChat struct {
	ch     *quorum.Chat
	dir    string
	models []string
	r1, r2 *quorum.ChatRound
	err2   error // round 2's
	api    *modelapi.Server
	start  func() *copilot.Client
}

// crashChat makes a crashedChat, checking on the way what the crash left:
// round 2's error says the CLI stopped, the round is recorded failed
// beside round 1, intact, in memory and in the file; the dead CLI's
// sessions are let go; the killed process is reaped.
func crashChat(ctx context.Context, t *testing.T) *crashedChat {
	t.Helper()
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	models := []string{"alpha", "beta"}
	// hung receives the model of each answer request of the crash round;
	// the model API holds the request open until the CLI is gone.
	hung := make(chan string, 8)
	panelist := func(name string) modelapi.Responder {
		answer := chatPanelist(name)
		return func(req modelapi.Request) modelapi.Reply {
			if strings.Contains(req.UserText, quorum.PromptMarker(quorum.PhaseAnswer)) && questionOf(req.UserText) == crashQ {
				select {
				case hung <- req.Model:
				default:
				}
				return modelapi.Stall()
			}
			return answer(req)
		}
	}
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{
		"alpha": panelist("alpha"), "beta": panelist("beta"),
	}})
	env := clitest.OfflineEnv(t, api.URL())
	// startCmd starts a CLI and returns the command it runs as: the CLI's
	// own process (Sandbox.Command execs it in place).
	startCmd := func() (*copilot.Client, *exec.Cmd) {
		var mu sync.Mutex
		var cmd *exec.Cmd
		c := startRealCLI(ctx, t, sb, bin, env, func(started *exec.Cmd) {
			mu.Lock()
			defer mu.Unlock()
			cmd = started
		})
		mu.Lock()
		defer mu.Unlock()
		return c, cmd
	}
	cc := &crashedChat{dir: t.TempDir(), models: models, api: api, start: func() *copilot.Client {
		c, _ := startCmd()
		return c
	}}

	c1, cmd := startCmd()
	ch, err := quorum.NewChat(quorum.Copilot(c1), quorum.ChatConfig{Dir: cc.dir, Config: quorum.Config{Models: models, Moderator: "beta"}})
	if err != nil {
		t.Fatal(err)
	}
	cc.ch = ch
	r1, err := ch.Discuss(ctx, "Should we adopt Go?")
	if err != nil {
		t.Fatalf("round 1: %v", err)
	}
	if r1.Status != quorum.RoundOK || !strings.Contains(r1.Conclusion, "by beta") || len(r1.Sessions) != len(models) {
		t.Fatalf("round 1: status %q, conclusion %q, sessions %v", r1.Status, r1.Conclusion, r1.Sessions)
	}
	cc.r1 = r1

	// Round 2: every model's request reaches the model API and hangs
	// there; only then is the CLI killed.
	type result struct {
		r   *quorum.ChatRound
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := ch.Discuss(ctx, crashQ)
		done <- result{r, err}
	}()
	waiting := map[string]bool{}
	for len(waiting) < len(models) {
		select {
		case m := <-hung:
			waiting[m] = true
		case res := <-done:
			t.Fatalf("round 2 ended before the CLI was killed: %+v, %v", res.r, res.err)
		case <-ctx.Done():
			t.Fatalf("round 2's requests did not all reach the model API (%v did): %v", waiting, ctx.Err())
		}
	}
	pid := cmd.Process.Pid
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("killing the CLI (pid %d): %v", pid, err)
	}
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		t.Fatalf("round 2 did not end after the CLI was killed: %v", ctx.Err())
	}
	r2, err := res.r, res.err
	cc.r2, cc.err2 = r2, err

	// The CLI's death fails every model's answer at once: too few left,
	// each failure the CLI's exit (the rule the chat UI's cliStopped
	// reads it by).
	var tf *quorum.TooFewError
	if !errors.As(err, &tf) || tf.Phase != quorum.PhaseAnswer || len(tf.Failures) != len(models) {
		t.Fatalf("round 2's error = %v, want a TooFewError of the answer phase listing %d failures", err, len(models))
	}
	for _, f := range tf.Failures {
		if !errors.Is(f, copilot.ErrStopped) || !errors.Is(f, copilot.ErrCLIExited) {
			t.Errorf("%s's failure in round 2 = %v, want copilot.ErrStopped with copilot.ErrCLIExited", f.Model, f)
		}
	}
	if r2 == nil {
		t.Fatal("round 2 returned no ChatRound")
	}
	if r2.N != 2 || r2.Status != quorum.RoundFailed || r2.Error != err.Error() || r2.Conclusion != "" {
		t.Errorf("round 2: n %d, status %q, conclusion %q, error %q; want 2, %q, none, the round's error", r2.N, r2.Status, r2.Conclusion, r2.Error, quorum.RoundFailed)
	}
	if len(r2.Sessions) != 0 {
		t.Errorf("round 2 records sessions %v; the dead CLI's sessions took no turn", r2.Sessions)
	}
	rounds := ch.Rounds()
	if len(rounds) != 2 || rounds[0].Status != quorum.RoundOK || rounds[0].Conclusion != r1.Conclusion || rounds[1].Status != quorum.RoundFailed {
		t.Fatalf("the chat's rounds after the crash: %+v", rounds)
	}
	// The failed sessions were let go: each model opens a new one at its
	// next round.
	for _, s := range ch.Sessions() {
		if s.ID != "" {
			t.Errorf("%s's session after the crash: %+v, want none open", s.Model, s)
		}
	}
	saved, err := quorum.LoadChat(cc.dir, ch.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Rounds) != 2 {
		t.Fatalf("the file holds %d rounds after the crash, want 2: %+v", len(saved.Rounds), saved.Rounds)
	}
	if g := saved.Rounds[0]; g.Status != quorum.RoundOK || g.Prompt != r1.Prompt || g.Conclusion != r1.Conclusion {
		t.Errorf("round 1 as saved: status %q, prompt %q, conclusion %q; want ok, %q, %q", g.Status, g.Prompt, g.Conclusion, r1.Prompt, r1.Conclusion)
	}
	if g := saved.Rounds[1]; g.Status != quorum.RoundFailed || g.Prompt != crashQ || g.Error != r2.Error {
		t.Errorf("round 2 as saved: status %q, prompt %q, error %q; want %q, %q, %q", g.Status, g.Prompt, g.Error, quorum.RoundFailed, crashQ, r2.Error)
	}

	// Closing the client reaps the killed process.
	if err := c1.Close(); err != nil && !errors.Is(err, copilot.ErrStopped) && !errors.Is(err, copilot.ErrCLIExited) {
		t.Errorf("closing the client of the killed CLI: %v", err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the killed CLI (pid %d) is still there after Close (kill 0: %v): not reaped", pid, err)
	}
	return cc
}

// answerRequests are the model API's answer-phase requests of model, in
// order.
func (cc *crashedChat) answerRequests(model string) []modelapi.Request {
	var out []modelapi.Request
	for _, r := range cc.api.Requests() {
		if r.Model == model && strings.Contains(r.UserText, quorum.PromptMarker(quorum.PhaseAnswer)) {
			out = append(out, r)
		}
	}
	return out
}

// resume continues the chat on a new CLI process and runs round 3,
// which must end normally; it returns round 3 and each model's answer
// request of it.
func (cc *crashedChat) resume(ctx context.Context, t *testing.T) (*quorum.Chat, *quorum.ChatRound, map[string]modelapi.Request) {
	t.Helper()
	c2 := cc.start()
	ch2, err := quorum.ResumeChat(ctx, quorum.Copilot(c2), quorum.ChatConfig{Dir: cc.dir}, cc.ch.ID())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), quorum.DefaultCloseTimeout)
		defer cancel()
		_ = ch2.Close(cctx)
	})
	r3, err := ch2.Discuss(ctx, "Which test framework?")
	if err != nil {
		t.Fatalf("round 3: %v", err)
	}
	if r3.N != 3 || r3.Status != quorum.RoundOK {
		t.Errorf("round 3: n %d, status %q", r3.N, r3.Status)
	}
	last := map[string]modelapi.Request{}
	for _, m := range cc.models {
		reqs := cc.answerRequests(m)
		if len(reqs) != 3 {
			t.Fatalf("%s: %d answer requests, want 3 (one a round)", m, len(reqs))
		}
		last[m] = reqs[2]
	}
	saved, err := quorum.LoadChat(cc.dir, cc.ch.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Rounds) != 3 || saved.Rounds[1].Status != quorum.RoundFailed || saved.Rounds[2].Status != quorum.RoundOK {
		t.Errorf("the file after round 3: %+v", saved.Rounds)
	}
	return ch2, r3, last
}

// A Chat whose real Copilot CLI is killed (SIGKILL) mid-round, offline:
// the round fails with ErrStopped and is recorded failed, in memory and
// in the file, beside the round before it, intact; the killed process is
// reaped. Closed as the quorum command closes it when the user leaves,
// and resumed by a new CLI process, the chat goes on in new sessions
// whose prompt carries both saved rounds, round 1's conclusion among
// them. Fails, not skips, without the CLI.
func TestRealCLIChatSurvivesACLICrashMidRound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), realGuard)
	defer cancel()
	cc := crashChat(ctx, t)
	if err := cc.ch.Close(ctx); err != nil {
		t.Errorf("closing the chat after the crash: %v", err)
	}
	if saved, err := quorum.LoadChat(cc.dir, cc.ch.ID()); err != nil || !saved.Closed || len(saved.Rounds) != 2 {
		t.Fatalf("the file after Close: %+v, %v", saved, err)
	}
	ch2, r3, last := cc.resume(ctx, t)
	for _, m := range cc.models {
		req := last[m]
		if req.Conversation == "" || req.Conversation == cc.r1.Sessions[m] || r3.Sessions[m] != req.Conversation {
			t.Errorf("%s: round 3 went to session %q (chat: %q, round 1's: %q), want a new one", m, req.Conversation, r3.Sessions[m], cc.r1.Sessions[m])
		}
		for _, q := range []string{"BEGIN ROUND 1", "Should we adopt Go?", cc.r1.Conclusion, "BEGIN ROUND 2", crashQ, "(nothing: the round failed)"} {
			if !strings.Contains(req.UserText, q) {
				t.Errorf("%s: round 3's prompt lacks %q:\n%s", m, q, req.UserText)
			}
		}
	}
	if err := ch2.Close(ctx); err != nil {
		t.Error(err)
	}
}

// A Chat whose real Copilot CLI is killed mid-round and which is then
// detached (or never closed: the program stopped too) goes on, resumed by
// a new CLI process, with round 1's conclusion before every model: the
// sessions the crash failed are not taken up as if they had seen every
// saved round.
// (A failed session is saved as gone, and a resumed session knows the
// last round it took part in.)
func TestRealCLIChatDetachedAfterACLICrashTellsTheSavedRounds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), realGuard)
	defer cancel()
	cc := crashChat(ctx, t)
	if err := cc.ch.Detach(ctx); err != nil {
		t.Errorf("detaching the chat after the crash: %v", err)
	}
	_, _, last := cc.resume(ctx, t)
	for _, m := range cc.models {
		req := last[m]
		var seen strings.Builder
		for _, msg := range req.Messages {
			seen.WriteString(msg.Content)
		}
		if !strings.Contains(seen.String(), cc.r1.Conclusion) {
			t.Errorf("%s: round 3 (session %q, round 1's %q) reaches the model without round 1's conclusion; its prompt:\n%s", m, req.Conversation, cc.r1.Sessions[m], req.UserText)
		}
	}
}
