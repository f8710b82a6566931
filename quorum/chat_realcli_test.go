package quorum_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/quorum"
)

var chatLabelRE = regexp.MustCompile(`(?m)^<<<BEGIN RESPONSE ([A-Z]+) [0-9a-f]+>>>$`)

// chatPanelist answers a discussion's prompts for the chat test: the
// answer names the model and what it was asked last, the review scores
// every quoted answer, the synthesis names its moderator.
func chatPanelist(name string) modelapi.Responder {
	return func(req modelapi.Request) modelapi.Reply {
		p := req.UserText
		switch {
		case strings.Contains(p, quorum.PromptMarker(quorum.PhaseAnswer)):
			_, q, _ := strings.Cut(p, "Question:\n")
			q, _, _ = strings.Cut(q, "\n")
			return modelapi.Text(fmt.Sprintf("%s answers %q.", name, strings.TrimSpace(q))).WithChunks(2)
		case strings.Contains(p, quorum.PromptMarker(quorum.PhaseReview)):
			var reviews []string
			var ranking []string
			for _, m := range chatLabelRE.FindAllStringSubmatch(p, -1) {
				reviews = append(reviews, fmt.Sprintf(`{"response": %q, "score": 7, "strengths": ["clear"], "weaknesses": ["brief"]}`, m[1]))
				ranking = append(ranking, fmt.Sprintf("%q", m[1]))
			}
			return modelapi.Text(`{"reviews": [` + strings.Join(reviews, ", ") + `], "ranking": [` + strings.Join(ranking, ", ") + `]}`)
		case strings.Contains(p, quorum.PromptMarker(quorum.PhaseSynthesis)):
			return modelapi.Text(fmt.Sprintf("## Conclusion\nSynthesis %d by %s.\n\n## Key points\n- one\n\n## Consensus\n- yes\n\n## Disagreements\n- none\n", len(req.Messages), name))
		}
		return modelapi.Text(name + " replies.")
	}
}

// A Chat through the real Copilot CLI, offline: the follow-up reaches the
// same CLI sessions — the model API sees each model's first exchange in
// the second request of its session — and a detached chat resumed by a
// new CLI process goes on in those sessions, with both exchanges; a
// closed chat resumed gets new sessions, told the saved rounds. Fails,
// not skips, without the CLI.
func TestRealCLIChatFollowUpAndResume(t *testing.T) {
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	sb := clitest.NewSandbox(t)
	models := []string{"alpha", "beta", "gamma"}
	api := sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{
		"alpha": chatPanelist("alpha"), "beta": chatPanelist("beta"), "gamma": chatPanelist("gamma"),
	}})
	// One environment for both CLI processes: the second finds the first's
	// sessions on disk, in the same COPILOT_HOME.
	env := clitest.OfflineEnv(t, api.URL())
	ctx, cancel := context.WithTimeout(context.Background(), realGuard)
	defer cancel()
	start := func() *copilot.Client {
		return startRealCLI(ctx, t, sb, bin, env, nil)
	}
	cfg := quorum.ChatConfig{Dir: t.TempDir(), Config: quorum.Config{Models: models, Moderator: "beta"}}

	// answerRequests are the model API's answer-phase requests of model,
	// in order.
	answerRequests := func(model string) []modelapi.Request {
		var out []modelapi.Request
		for _, r := range api.Requests() {
			if r.Model == model && strings.Contains(r.UserText, quorum.PromptMarker(quorum.PhaseAnswer)) {
				out = append(out, r)
			}
		}
		return out
	}
	c1 := start()
	ch, err := quorum.NewChat(quorum.Copilot(c1), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := ch.Discuss(ctx, "Should we adopt Go?")
	if err != nil {
		t.Fatalf("round 1: %v", err)
	}
	r2, err := ch.Discuss(ctx, "And what about testing?")
	if err != nil {
		t.Fatalf("round 2: %v", err)
	}
	if !strings.Contains(r2.Sent, "Synthesis") || !strings.Contains(r2.Sent, "by beta") {
		t.Errorf("round 2's prompt does not carry round 1's synthesis:\n%s", r2.Sent)
	}
	for _, m := range models {
		reqs := answerRequests(m)
		if len(reqs) != 2 {
			t.Fatalf("%s: %d answer requests, want 2", m, len(reqs))
		}
		if reqs[0].Conversation == "" || reqs[1].Conversation != reqs[0].Conversation || r1.Sessions[m] != reqs[0].Conversation || r2.Sessions[m] != reqs[0].Conversation {
			t.Errorf("%s: the follow-up went to session %q, the first question to %q (chat: %q, %q)", m, reqs[1].Conversation, reqs[0].Conversation, r1.Sessions[m], r2.Sessions[m])
		}
		if !carries(reqs[1], "Should we adopt Go?", m+" answers") {
			t.Errorf("%s: the second request does not carry the first exchange: %s", m, messagesOf(reqs[1]))
		}
	}
	if err := ch.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	c1.Close()

	// A new CLI process: the chat resumed takes the sessions up by id.
	c2 := start()
	defer c2.Close()
	ch2, err := quorum.ResumeChat(ctx, quorum.Copilot(c2), quorum.ChatConfig{Dir: cfg.Dir}, ch.ID())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ch2.Sessions() {
		if !s.Resumed || s.ID != r1.Sessions[s.Model] {
			t.Errorf("%s's session after ResumeChat: %+v, want %s resumed", s.Model, s, r1.Sessions[s.Model])
		}
	}
	if n := len(ch2.Sessions()); n != len(models) {
		t.Errorf("%d sessions resumed, want %d", n, len(models))
	}
	r3, err := ch2.Discuss(ctx, "Which test framework?")
	if err != nil {
		t.Fatalf("round 3: %v", err)
	}
	for _, m := range models {
		reqs := answerRequests(m)
		last := reqs[len(reqs)-1]
		if last.Conversation != r1.Sessions[m] || r3.Sessions[m] != r1.Sessions[m] {
			t.Errorf("%s: after resuming, the round went to session %q, not %q", m, last.Conversation, r1.Sessions[m])
		}
		if !carries(last, "Should we adopt Go?", m+" answers") || !carries(last, "And what about testing?", m+" answers") {
			t.Errorf("%s: the resumed session does not carry both earlier exchanges: %s", m, messagesOf(last))
		}
	}
	if err := ch2.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// Closed: the sessions were deleted; resumed again, the chat opens new
	// ones and tells them every saved round.
	ch3, err := quorum.ResumeChat(ctx, quorum.Copilot(c2), quorum.ChatConfig{Dir: cfg.Dir}, ch.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer ch3.Close(ctx)
	r4, err := ch3.Discuss(ctx, "Summing up?")
	if err != nil {
		t.Fatalf("round 4: %v", err)
	}
	for _, m := range models {
		reqs := answerRequests(m)
		last := reqs[len(reqs)-1]
		if last.Conversation == r1.Sessions[m] || r4.Sessions[m] != last.Conversation {
			t.Errorf("%s: round 4 went to session %q (chat: %q), want a new one", m, last.Conversation, r4.Sessions[m])
		}
		for _, q := range []string{"BEGIN ROUND 1", "Should we adopt Go?", "BEGIN ROUND 3", "Which test framework?"} {
			if !strings.Contains(last.UserText, q) {
				t.Errorf("%s: the new session's prompt lacks %q:\n%s", m, q, last.UserText)
			}
		}
	}
}

func messagesOf(r modelapi.Request) string {
	b, _ := json.MarshalIndent(r.Messages, "", "  ")
	return string(b)
}
