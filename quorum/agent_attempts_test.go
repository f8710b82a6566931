package quorum

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
)

// attemptsBackend runs an agent with several attempts on fakeBackend's
// planning and reviews: each attempt gets a workspace of its own, and its
// executor, once every attempt's executor has started (the barrier), asks
// the gate about one shell command and writes a file named for its
// attempt. The judges rank the attempts as ranking says.
type attemptsBackend struct {
	*fakeBackend
	n int
	// ranking is every judge's ranking, best first.
	ranking []string
	// fail names the attempts whose executors fail their first step.
	fail string
	// stall, when not 0, is the step at which every executor waits for
	// the run's end, once stalled is told it waits.
	stall   int
	stalled sync.WaitGroup
	// judging, when set, is closed by the first judge, which then waits
	// for the run's end.
	judging chan struct{}
	// noSpace names the attempts whose workspace cannot be made.
	noSpace string

	barrier sync.WaitGroup // done once per executor in flight
	mu      sync.Mutex
	spaces  map[string]*fakeWorkspace
	judged  []string // the judging prompts
}

func newAttemptsBackend(n int, ranking ...string) *attemptsBackend {
	b := &attemptsBackend{fakeBackend: &fakeBackend{ws: newFakeWorkspace(), objectRounds: 1}, n: n, ranking: ranking, spaces: map[string]*fakeWorkspace{}}
	b.barrier.Add(n)
	return b
}

func (b *attemptsBackend) workspace(ctx context.Context) (Workspace, error) {
	label, ok := AttemptLabel(ctx)
	if !ok {
		return nil, errors.New("the workspace was asked for outside an attempt")
	}
	if strings.Contains(b.noSpace, label) {
		return nil, errors.New("the disk is full")
	}
	ws := newFakeWorkspace()
	b.mu.Lock()
	b.spaces[label] = ws
	b.mu.Unlock()
	return ws, nil
}

func (b *attemptsBackend) config() AgentConfig {
	cfg := agentConfig(b.fakeBackend)
	cfg.Workspace = b.workspace
	cfg.Attempts = b.n
	// A bound, not a measure: an implementation that ran the attempts one
	// after another would wait at the barrier until it passes.
	cfg.PhaseTimeout = time.Minute
	return cfg
}

func (b *attemptsBackend) Open(ctx context.Context, o OpenOptions) (Conversation, error) {
	conv, err := b.fakeBackend.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	return &attemptsConv{fakeConv: conv.(*fakeConv), b: b}, nil
}

type attemptsConv struct {
	*fakeConv
	b     *attemptsBackend
	label string
}

var attemptNoteRE = regexp.MustCompile(`This is attempt ([A-Z]) of (\d+)`)

func (c *attemptsConv) Send(ctx context.Context, prompt string, onDelta func(string)) (Reply, error) {
	b := c.b
	switch {
	case strings.HasPrefix(prompt, PromptMarker(PhaseJudge)):
		b.mu.Lock()
		b.judged = append(b.judged, prompt)
		first := len(b.judged) == 1
		b.mu.Unlock()
		if b.judging != nil {
			if first {
				close(b.judging)
			}
			<-ctx.Done()
			return Reply{}, ctx.Err()
		}
		var reviews []string
		for i, l := range b.ranking {
			reviews = append(reviews, fmt.Sprintf(`{"response": %q, "score": %d, "strengths": ["%s is tidy"], "weaknesses": []}`, l, 9-i, l))
		}
		rank, _ := json.Marshal(b.ranking)
		return Reply{Text: `{"reviews": [` + strings.Join(reviews, ",") + `], "ranking": ` + string(rank) + `}`, Usage: Usage{Calls: 1}}, nil
	case strings.HasPrefix(prompt, PromptMarker(PhaseExecute)):
		if c.label == "" {
			m := attemptNoteRE.FindStringSubmatch(prompt)
			if m == nil {
				return Reply{}, errors.New("the first step's prompt does not say which attempt it is")
			}
			c.label = m[1]
			b.barrier.Done()
			done := make(chan struct{})
			go func() { b.barrier.Wait(); close(done) }()
			select {
			case <-done:
			case <-ctx.Done():
				return Reply{}, fmt.Errorf("attempt %s waited for the other attempts' executors: %w", c.label, ctx.Err())
			}
		}
		if strings.Contains(b.fail, c.label) {
			return Reply{}, errors.New("the executor crashed")
		}
		c.step++
		if c.step == b.stall {
			b.stalled.Done()
			<-ctx.Done()
			return Reply{}, ctx.Err()
		}
		b.mu.Lock()
		ws := b.spaces[c.label]
		b.mu.Unlock()
		d := c.o.Tools.Decide(ctx, Action{Kind: copilot.PermissionKindShell, Command: "ls", Paths: []string{"/ws"}})
		ws.write("attempt-"+strings.ToLower(c.label)+".go", fmt.Sprintf("package main // attempt %s, shell allowed %v\n", c.label, d.Allow))
		return Reply{Text: "done", Usage: Usage{Calls: 1}}, nil
	}
	return c.fakeConv.Send(ctx, prompt, onDelta)
}

// Three attempts carry the plan out at once (all three executors are in
// flight together: the barrier), each in its own workspace, each asking
// its own shell questions labelled by attempt; the judges know them by
// label only, and their ranking picks the winner, whose work the result's
// own fields describe.
func TestAgentAttemptsRunConcurrentlyAndTheJudgesPick(t *testing.T) {
	b := newAttemptsBackend(3, "B", "C", "A")
	cfg := b.config()
	cfg.Executors = []string{"m1", "m2", "m3"}
	cfg.Attempts = 0
	cfg.Shell = ShellAsk
	var askMu sync.Mutex
	var asked []string
	cfg.AskShell = func(ctx context.Context, a Action) (ActionDecision, error) {
		askMu.Lock()
		asked = append(asked, a.Attempt)
		askMu.Unlock()
		return ActionDecision{Allow: a.Attempt != "C", Reason: "the user said so"}, nil
	}
	var started []Progress
	cfg.Progress = func(ev Progress) {
		if ev.Kind == ModelStarted {
			started = append(started, ev)
		}
	}
	a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Every turn of an attempt — its executor's and its reviewers' — names
	// the attempt in progress, so that the same model's turns in the same
	// phase of two attempts are told apart; the judging names none.
	attemptTurn := regexp.MustCompile(`(^| \()attempt [ABC]\)?$`)
	seen := map[[3]string]bool{}
	for _, ev := range started {
		inAttempt := ev.Phase == PhaseExecute || ev.Phase == PhaseInspect || ev.Phase == PhaseFix || ev.Phase == PhaseShellVote
		if inAttempt != attemptTurn.MatchString(ev.Target) {
			t.Errorf("a %s turn of %s has target %q", ev.Phase, ev.Model, ev.Target)
		}
		k := [3]string{string(ev.Phase), ev.Model, ev.Target}
		if inAttempt && seen[k] {
			t.Errorf("two %s turns of %s share the target %q", ev.Phase, ev.Model, ev.Target)
		}
		seen[k] = true
	}
	slices.Sort(asked)
	if !slices.Equal(slices.Compact(asked), []string{"A", "B", "C"}) {
		t.Fatalf("shell questions came from attempts %v; want each of A, B, C, and no other", asked)
	}
	if len(a.Attempts) != 3 {
		t.Fatalf("attempts %+v; want 3", a.Attempts)
	}
	for i, at := range a.Attempts {
		l := attemptLetter(i)
		if at.Label != l || at.Executor != cfg.Executors[i] || at.Error != "" || at.Stage != StageReviewed {
			t.Fatalf("attempt %d: %+v; want label %s, executor %s, reviewed, no error", i, at, l, cfg.Executors[i])
		}
		file := "attempt-" + strings.ToLower(l) + ".go"
		if at.Change == nil || len(at.Change.Files) != 1 || at.Change.Files[0].Path != file {
			t.Fatalf("attempt %s changed %+v; want %s alone, in its own workspace", l, at.Change, file)
		}
		if len(at.Actions) != len(at.Steps) {
			t.Fatalf("attempt %s's actions %+v; want its shell question of each step", l, at.Actions)
		}
		for _, act := range at.Actions {
			if act.Action.Attempt != l || act.Allow != (l != "C") || act.By != ByUser {
				t.Fatalf("attempt %s's action %+v; want it labelled %s and decided by the user", l, act, l)
			}
		}
		for _, rv := range at.Reviews {
			for _, in := range rv.Inspections {
				if in.Model == at.Executor {
					t.Fatalf("attempt %s's executor %s reviewed its own change", l, at.Executor)
				}
			}
		}
	}
	if len(b.judged) != 3 {
		t.Fatalf("%d judging prompts; want one per model", len(b.judged))
	}
	for _, p := range b.judged {
		for _, m := range cfg.Models {
			if strings.Contains(p, m) {
				t.Fatalf("a judging prompt names the executor %s:\n%s", m, p)
			}
		}
		for _, l := range []string{"Attempt A", "Attempt B", "Attempt C", "attempt-b.go"} {
			if !strings.Contains(p, l) {
				t.Fatalf("a judging prompt lacks %q:\n%s", l, p)
			}
		}
	}
	k := a.Ranking
	if k == nil || k.Winner != "B" || len(k.Standings) != 3 || k.Standings[0].Label != "B" || k.Standings[1].Label != "C" || k.Standings[2].Label != "A" {
		t.Fatalf("ranking %+v; want B, C, A", k)
	}
	if len(k.Judgements) != 3 || !slices.Equal(k.Judgements[0].Ranking, []string{"B", "C", "A"}) || len(k.Judgements[0].Assessments) != 3 || k.Standings[0].Borda != 6 {
		t.Fatalf("judgements %+v, standings %+v; want each model's ranking and reasons, B with 2 Borda points from each of 3", k.Judgements, k.Standings)
	}
	if a.Executor != "m2" || a.Workspace == nil || a.Workspace != a.Attempts[1].Workspace || a.Change.Files[0].Path != "attempt-b.go" || a.Stage != StageReviewed {
		t.Fatalf("the result describes executor %s, change %+v, stage %s; want attempt B's", a.Executor, a.Change, a.Stage)
	}
	if a.Degraded {
		t.Fatalf("a run whose attempts all succeeded is degraded: %+v", a.Failures)
	}
	var judge *PhaseReport
	for i := range a.Phases {
		if a.Phases[i].Phase == PhaseJudge {
			judge = &a.Phases[i]
		}
	}
	if judge == nil || len(judge.Models) != 3 {
		t.Fatalf("phases %+v; want a judge phase of every model", a.Phases)
	}
}

// One attempt whose executor fails leaves a degraded run: the others go
// on and are judged, and the failed attempt ranks below them whatever the
// judges say.
func TestAgentAttemptFailingLeavesADegradedRun(t *testing.T) {
	b := newAttemptsBackend(2, "A", "B")
	b.fail = "A"
	cfg := b.config()
	a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Degraded || len(a.Failures) == 0 || a.Failures[0].Target != "1 (attempt A)" {
		t.Fatalf("degraded %v, failures %+v; want the run degraded by attempt A's failure", a.Degraded, a.Failures)
	}
	if a.Attempts[0].Error == "" || a.Attempts[1].Error != "" || a.Attempts[1].Stage != StageReviewed {
		t.Fatalf("attempts %+v; want A failed, B reviewed", a.Attempts)
	}
	k := a.Ranking
	if k == nil || k.Winner != "B" || k.Standings[1].Label != "A" || k.Standings[1].HeldBack == "" || k.Standings[0].HeldBack != "" {
		t.Fatalf("ranking %+v; want B first, A held back", k)
	}
	if a.Workspace != a.Attempts[1].Workspace || a.Executor != "m1" {
		t.Fatalf("the result describes %+v, executor %s; want attempt B's", a.Workspace, a.Executor)
	}
}

// Every attempt failing fails the run, with every attempt's work kept.
func TestAgentEveryAttemptFailing(t *testing.T) {
	b := newAttemptsBackend(2, "A", "B")
	b.fail = "AB"
	cfg := b.config()
	cfg.Executors = []string{"m2", "m3"}
	a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
	if err == nil || !strings.Contains(err.Error(), "every attempt failed") {
		t.Fatalf("err %v; want every attempt failed", err)
	}
	if len(a.Attempts) != 2 || a.Ranking != nil {
		t.Fatalf("attempts %+v, ranking %+v; want both attempts, no ranking", a.Attempts, a.Ranking)
	}
}

// Attempts of 1 (or 0), and Executors naming one model, are the run as it
// was: no attempt in the result or its JSON, no attempt note in the
// executor's prompt, no label on the gate's questions.
func TestAgentOneAttemptIsUnchanged(t *testing.T) {
	for _, cfgOf := range []func(AgentConfig) AgentConfig{
		func(c AgentConfig) AgentConfig { c.Attempts = 1; return c },
		func(c AgentConfig) AgentConfig { c.Executors = []string{"m2"}; return c },
	} {
		ws := newFakeWorkspace()
		b := &fakeBackend{ws: ws, actions: []Action{{Kind: copilot.PermissionKindShell, Command: "ls", Paths: []string{"/ws"}}}}
		cfg := cfgOf(agentConfig(b))
		cfg.Shell = ShellAsk
		var labels []string
		cfg.AskShell = func(ctx context.Context, a Action) (ActionDecision, error) {
			labels = append(labels, a.Attempt)
			return ActionDecision{Allow: true}, nil
		}
		a, err := Agent(context.Background(), b, "add a --verbose flag", cfg)
		if err != nil {
			t.Fatal(err)
		}
		if a.Attempts != nil || a.Ranking != nil || a.Stage != StageReviewed {
			t.Fatalf("attempts %+v, ranking %+v, stage %s; want a one-attempt run", a.Attempts, a.Ranking, a.Stage)
		}
		if len(cfg.Executors) == 1 && a.Executor != "m2" {
			t.Fatalf("executor %s; want m2, the one named", a.Executor)
		}
		out, _ := json.Marshal(a)
		if strings.Contains(string(out), `"attempts"`) || strings.Contains(string(out), `"ranking"`) || strings.Contains(string(out), `"attempt"`) {
			t.Fatalf("the JSON of a one-attempt run mentions attempts: %s", out)
		}
		for _, l := range labels {
			if l != "" {
				t.Fatalf("a one-attempt run's question is labelled %q", l)
			}
		}
		for _, p := range b.prompts[PhaseExecute] {
			if strings.Contains(p, "This is attempt") || len(b.prompts[PhaseJudge]) > 0 {
				t.Fatalf("a one-attempt run told its executor of attempts or judged:\n%s", p)
			}
		}
	}
}

func TestAgentAttemptsSettings(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*AgentConfig)
		want string
	}{
		{"negative", func(c *AgentConfig) { c.Attempts = -1 }, "Attempts is negative"},
		{"too many", func(c *AgentConfig) { c.Attempts = MaxAttempts + 1 }, "at most"},
		{"blank executor", func(c *AgentConfig) { c.Executors = []string{"m1", " "} }, "Executors[1] is blank"},
		{"mismatch", func(c *AgentConfig) { c.Attempts, c.Executors = 3, []string{"m1", "m2"} }, "one executor per attempt"},
		{"both", func(c *AgentConfig) { c.Executor, c.Executors = "m1", []string{"m1", "m2"} }, "both set"},
	} {
		cfg := agentConfig(&fakeBackend{ws: newFakeWorkspace()})
		c.set(&cfg)
		_, err := Agent(context.Background(), &fakeBackend{}, "task", cfg)
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v; want ErrInvalidConfig saying %q", c.name, err, c.want)
		}
	}
}

// The estimate counts every attempt's executor, votes, reviews and fixes,
// then the judging.
func TestEstimateAgentAttempts(t *testing.T) {
	cfg := agentConfig(&fakeBackend{ws: newFakeWorkspace()})
	one, err := EstimateAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Executors = []string{"m1", "m2"}
	two, err := EstimateAgent(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	judge := false
	for _, p := range two.Phases {
		for _, m := range p.Models {
			roles = append(roles, string(p.Phase)+":"+m.Model+":"+m.Role)
		}
		judge = judge || (p.Phase == PhaseJudge && p.Turns.Max == 3)
	}
	for _, want := range []string{"execute:m1:executor of attempt A", "execute:m2:executor of attempt B", "fix:m2:executor of attempt B", "inspect::each model but the executor of attempt B"} {
		if !slices.Contains(roles, want) {
			t.Fatalf("roles %v lack %q", roles, want)
		}
	}
	if !judge || two.Premium.Min <= one.Premium.Min || two.Premium.Max <= one.Premium.Max {
		t.Fatalf("two attempts cost %+v, one %+v (judge phase %v); want more, with a judging of 3 turns at most", two.Premium, one.Premium, judge)
	}
}
