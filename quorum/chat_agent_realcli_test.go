package quorum_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// turnPhase is the phase of the turn req belongs to: the marker of the
// last user message that has one, which in a kept session is the turn's
// own prompt, not the first exchange's.
func turnPhase(req modelapi.Request) quorum.Phase {
	prefix := strings.TrimSuffix(quorum.PromptMarker(""), "]")
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		if j := strings.Index(m.Content, prefix); j >= 0 {
			p, _, _ := strings.Cut(m.Content[j+len(prefix):], "]")
			return quorum.Phase(p)
		}
	}
	return ""
}

// carries reports whether req's conversation holds, before its last
// message, the exchange of question and an answer containing answer.
func carries(req modelapi.Request, question, answer string) bool {
	if len(req.Messages) == 0 {
		return false
	}
	var user, assistant bool
	for _, m := range req.Messages[:len(req.Messages)-1] {
		user = user || m.Role == "user" && strings.Contains(m.Content, question)
		assistant = assistant || m.Role == "assistant" && strings.Contains(m.Content, answer)
	}
	return user && assistant
}

// An agent round in a Chat through the real Copilot CLI, offline, its
// built-in tools acting for real in a git worktree: after a discussion,
// "carry out what we agreed" is planned by each model in the session it
// discussed in (the model API sees the discussion's exchange in that
// session's second request, and the round's conclusion in the prompt);
// the executor works in a session of its own, offered the CLI's tools and
// none of the discussion; the file it creates with the CLI's create tool
// is on the agent's branch; the next discussion is told the branch; the
// user's repository, with an uncommitted change, is as it was; after
// Close the CLI keeps no session. Fails, not skips, without the CLI.
func TestRealCLIChatAgentRound(t *testing.T) {
	bin, err := clitest.Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	repo := gittest.NewRepo(t, map[string]string{"README.md": "# demo\n", "go.mod": "module demo\n"})
	gittest.Write(t, repo, map[string]string{"README.md": "# demo, edited and not committed\n"})
	before := gittest.Take(t, repo)

	const (
		q1   = "How should we greet new users?"
		task = "Carry out what we agreed"
		q3   = "What is left to do?"
	)
	plan := `{"title":"Greet","steps":[{"goal":"create hello.txt with a greeting","files":["hello.txt"],"check":"cat hello.txt"}],"risks":["none"]}`
	// executor creates hello.txt in the worktree its first prompt names,
	// then says the step is done.
	executor := func(req modelapi.Request) modelapi.Reply {
		m := worktreeRE.FindStringSubmatch(req.UserText)
		if m == nil {
			return modelapi.Text("no worktree in the prompt")
		}
		if sinceUser(req) == 0 {
			return modelapi.ToolCalls(modelapi.Call{Name: "create", Arguments: argsJSON(map[string]string{"path": filepath.Join(m[1], "hello.txt"), "file_text": "hello\n"})})
		}
		return modelapi.Text("Step done: hello.txt says hello.")
	}
	// alpha's plan wins (beta scores it 9, alpha beta's 4), so alpha
	// carries it out; beta reviews the plan and the result.
	agentPanelist := func(name string, replies map[quorum.Phase]string) modelapi.Responder {
		discuss := chatPanelist(name)
		return func(req modelapi.Request) modelapi.Reply {
			p := turnPhase(req)
			if p == quorum.PhaseExecute && name == "alpha" {
				return executor(req)
			}
			if r, ok := replies[p]; ok {
				return modelapi.Text(r)
			}
			return discuss(req)
		}
	}
	sb := clitest.NewSandbox(t)
	api := sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{
		"alpha": agentPanelist("alpha", map[quorum.Phase]string{
			quorum.PhasePropose: plan,
			quorum.PhaseVote:    `{"score": 4, "reasoning": "thin"}`,
		}),
		"beta": agentPanelist("beta", map[quorum.Phase]string{
			quorum.PhasePropose:    `{"title":"Wait","steps":[{"goal":"do nothing","files":[],"check":"none"}],"risks":[]}`,
			quorum.PhaseVote:       `{"score": 9, "reasoning": "clear"}`,
			quorum.PhasePlanReview: `{"approve": true, "objections": []}`,
			quorum.PhaseInspect:    `{"findings": []}`,
		}),
	}})
	ctx, cancel := context.WithTimeout(context.Background(), realGuard)
	defer cancel()
	c := startRealCLI(ctx, t, sb, bin, clitest.OfflineEnv(t, api.URL()), nil)
	cfg := quorum.ChatConfig{Dir: t.TempDir(), Config: quorum.Config{Models: []string{"alpha", "beta"}, Moderator: "beta"}}
	ch, err := quorum.NewChat(quorum.Copilot(c), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close(ctx)

	r1, err := ch.Discuss(ctx, q1)
	if err != nil {
		t.Fatalf("round 1: %v", err)
	}
	if r1.Status != quorum.RoundOK || !strings.Contains(r1.Conclusion, "by beta") || len(r1.Sessions) != 2 {
		t.Fatalf("round 1: status %q, conclusion %q, sessions %v", r1.Status, r1.Conclusion, r1.Sessions)
	}

	var wt *workspace.Worktree
	r2, err := ch.Agent(ctx, task, agentRound(t, repo, quorum.ApprovalApproved, &wt))
	if err != nil {
		t.Fatalf("round 2 (agent): %v", err)
	}
	if r2.Kind != quorum.RoundAgent || r2.Status != quorum.RoundOK || r2.Agent == nil || r2.Agent.Stage != quorum.StageReviewed || wt == nil {
		t.Fatalf("round 2: kind %q, status %q, result %+v, worktree %v", r2.Kind, r2.Status, r2.Agent, wt)
	}
	if a := r2.Agent; a.Task != task || a.Plan.Author != "alpha" || a.Executor != "alpha" {
		t.Fatalf("round 2: task %q, plan by %q, carried out by %q; want %q, alpha, alpha", a.Task, a.Plan.Author, a.Executor, task)
	}

	// Each model proposed in the session it answered round 1 in: the
	// session's second request, carrying the first exchange, its prompt
	// round 1's conclusion.
	inSession := func(id string) []modelapi.Request {
		var out []modelapi.Request
		for _, r := range api.Requests() {
			if r.Conversation == id {
				out = append(out, r)
			}
		}
		return out
	}
	kept := map[string]bool{}
	for _, m := range []string{"alpha", "beta"} {
		id := r1.Sessions[m]
		kept[id] = true
		reqs := inSession(id)
		if id == "" || r2.Sessions[m] != id || len(reqs) < 2 {
			t.Fatalf("%s: round 1 in session %q, round 2 in %q; %d requests in round 1's", m, id, r2.Sessions[m], len(reqs))
		}
		if p0, p1 := turnPhase(reqs[0]), turnPhase(reqs[1]); p0 != quorum.PhaseAnswer || p1 != quorum.PhasePropose {
			t.Fatalf("%s: its kept session's first requests are of phases %q, %q; want %q, %q", m, p0, p1, quorum.PhaseAnswer, quorum.PhasePropose)
		}
		propose := reqs[1]
		if !carries(propose, q1, m+" answers") {
			t.Errorf("%s: the propose request does not carry the first exchange: %s", m, messagesOf(propose))
		}
		if !strings.Contains(propose.UserText, r1.Conclusion) || !strings.Contains(propose.UserText, task) {
			t.Errorf("%s: the propose prompt lacks the task or round 1's conclusion %q:\n%s", m, r1.Conclusion, propose.UserText)
		}
		if len(propose.Tools) != 0 {
			t.Errorf("%s: the kept session was offered %d tools; a planner needs none", m, len(propose.Tools))
		}
	}

	// The executor worked in a session of its own, with the CLI's tools
	// and none of the discussion.
	var execs []modelapi.Request
	for _, r := range api.Requests() {
		if turnPhase(r) == quorum.PhaseExecute {
			execs = append(execs, r)
		}
	}
	if len(execs) < 2 {
		t.Fatalf("%d execute requests; want the tool call's and the summary's", len(execs))
	}
	for i, r := range execs {
		if r.Model != "alpha" || r.Conversation == "" || kept[r.Conversation] {
			t.Errorf("execute request %d: model %q in session %q; want alpha in a session not kept (kept: %v)", i, r.Model, r.Conversation, r1.Sessions)
		}
		var tools []string
		for _, tl := range r.Tools {
			tools = append(tools, tl.Name)
		}
		for _, want := range []string{"view", "create", "edit", "bash"} {
			if !slices.Contains(tools, want) {
				t.Errorf("execute request %d was not offered the CLI's %s tool (offered: %v)", i, want, tools)
			}
		}
		for _, m := range r.Messages {
			if strings.Contains(m.Content, quorum.PromptMarker(quorum.PhaseAnswer)) || m.Role == "assistant" && strings.Contains(m.Content, " answers ") {
				t.Errorf("execute request %d carries round 1's exchange, a %s message: %s", i, m.Role, m.Content)
			}
		}
	}
	if got := gittest.Git(t, repo, "show", wt.Branch()+":hello.txt"); got != "hello" {
		t.Errorf("hello.txt on the agent's branch %s is %q, want the executor's greeting", wt.Branch(), got)
	}
	if !strings.Contains(r2.Conclusion, wt.Branch()) {
		t.Errorf("round 2's conclusion does not name the branch %s:\n%s", wt.Branch(), r2.Conclusion)
	}
	before.Unchanged(t)

	// Round 3 is told what the agent did, in the kept sessions.
	r3, err := ch.Discuss(ctx, q3)
	if err != nil {
		t.Fatalf("round 3: %v", err)
	}
	if !strings.Contains(r3.Sent, r2.Conclusion) || !strings.Contains(r3.Sent, "a change carried out by an agent") {
		t.Errorf("round 3 was not sent round 2's conclusion:\n%s", r3.Sent)
	}
	for _, m := range []string{"alpha", "beta"} {
		var last *modelapi.Request
		for _, r := range inSession(r1.Sessions[m]) {
			if turnPhase(r) == quorum.PhaseAnswer {
				last = &r
			}
		}
		if last == nil || !strings.Contains(last.UserText, q3) || !strings.Contains(last.UserText, wt.Branch()) {
			t.Errorf("%s: round 3's answer request in its kept session %s does not name the branch %s: %+v", m, r1.Sessions[m], wt.Branch(), last)
		}
	}
	before.Unchanged(t)

	// The CLI keeps the two kept sessions, and only them, until Close;
	// none after.
	listed := func() []string {
		t.Helper()
		l, err := c.ListSessions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range l {
			ids = append(ids, e.SessionID)
		}
		slices.Sort(ids)
		return ids
	}
	want := []string{r1.Sessions["alpha"], r1.Sessions["beta"]}
	slices.Sort(want)
	if got := listed(); !slices.Equal(got, want) {
		t.Errorf("the CLI keeps sessions %v before Close; want the kept ones, %v", got, want)
	}
	if err := ch.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := listed(); len(got) != 0 {
		t.Errorf("sessions left on the CLI after Close: %v", got)
	}
	saved, err := quorum.LoadChat(cfg.Dir, ch.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Rounds) != 3 || saved.Rounds[1].Agent == nil || saved.Rounds[1].Agent.Workspace == nil || saved.Rounds[1].Agent.Workspace.Branch != wt.Branch() {
		t.Errorf("the saved chat's rounds: %+v", saved.Rounds)
	}
}
