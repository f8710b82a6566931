package chat

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// /agent --attempts 2 in the line mode: both attempts carry the plan out,
// each attempt's shell question says which attempt asks, the round's
// result holds both attempts and the ranking, each attempt has its branch,
// and the user's repository is untouched.
func TestAgentAttemptsInTheLineMode(t *testing.T) {
	r := newAgentRepo(t)
	o := r.withAttempts(newOptions(t), quorum.ShellAsk)
	lm := startLineMode(t, o)
	out, typeLine := lm.out, lm.typeLine
	typeLine("/agent --attempts 2 Document the release process")
	_, at := out.waitFor(t, 0, regexp.MustCompile(`Carry out this plan\? y yes · e edit it · n no: `))
	typeLine("y")
	asked := map[string]bool{}
	for range 2 {
		var m []string
		m, at = out.waitFor(t, at, regexp.MustCompile(`Attempt ([AB])'s executor asks to run:\n\n  git status\n(?s:.*?)Allow this command\?`))
		asked[m[1]] = true
		typeLine("a")
	}
	_, _ = out.waitFor(t, at, regexp.MustCompile(`Round 1 · agent: Document the release process`))
	lm.end()
	if !asked["A"] || !asked["B"] {
		t.Fatalf("questions from attempts %v; want A and B", asked)
	}
	a := o.Chat.Rounds()[0].Agent
	if len(a.Attempts) != 2 || a.Ranking == nil || a.Stage != quorum.StageReviewed {
		t.Fatalf("attempts %+v, ranking %+v, stage %s", a.Attempts, a.Ranking, a.Stage)
	}
	if b := r.branches(t); len(b) != 2 || !strings.HasSuffix(b[0], "-a") || !strings.HasSuffix(b[1], "-b") {
		t.Fatalf("branches %v; want one per attempt", b)
	}
	r.before.Unchanged(t)
}

// withAttempts lets o's /agent work in r as withAgent does, each attempt
// in a worktree and on a branch of its own (named for its label).
func (r *agentRepo) withAttempts(o Options, shell quorum.ShellMode) Options {
	o = r.withAgent(o, shell)
	o.Agent = func(ctx context.Context, task string) (quorum.AgentConfig, error) {
		repo, err := workspace.Open(ctx, r.dir)
		if err != nil {
			return quorum.AgentConfig{}, err
		}
		return quorum.AgentConfig{Shell: shell, Workspace: func(ctx context.Context) (quorum.Workspace, error) {
			label, _ := quorum.AttemptLabel(ctx)
			return repo.NewWorktree(ctx, task, workspace.Options{Root: r.worktrees, Suffix: strings.ToLower(label)})
		}}, nil
	}
	return o
}

// /agent --attempts 2 --plan carries out the plan the last /agent round
// stopped at in two attempts, with no planning.
func TestAgentPlanInAttempts(t *testing.T) {
	r := newAgentRepo(t)
	o := r.withAttempts(newOptions(t), quorum.ShellAuto)
	lm := startLineMode(t, o)
	out, typeLine := lm.out, lm.typeLine
	typeLine("/agent Document the release process")
	_, at := out.waitFor(t, 0, regexp.MustCompile(`Carry out this plan\? y yes · e edit it · n no: `))
	typeLine("n")
	_, at = out.waitFor(t, at, regexp.MustCompile(`Round 1 · agent: Document the release process`))
	typeLine("/agent --attempts 2 --plan")
	_, at = out.waitFor(t, at, regexp.MustCompile(`Carry out this plan\? y yes · e edit it · n no: `))
	typeLine("y")
	_, _ = out.waitFor(t, at, regexp.MustCompile(`Round 2 · agent: Document the release process`))
	lm.end()
	rs := o.Chat.Rounds()
	if len(rs) != 2 {
		t.Fatalf("%d rounds, want 2", len(rs))
	}
	a := rs[1].Agent
	if !a.PlanGiven || len(a.Attempts) != 2 || a.Ranking == nil || a.Stage != quorum.StageReviewed {
		t.Fatalf("plan given %v, attempts %+v, ranking %+v, stage %s", a.PlanGiven, a.Attempts, a.Ranking, a.Stage)
	}
	for _, c := range a.Calls {
		if slices.Contains(planningPhases, c.Phase) {
			t.Errorf("a %s call by %s: the plan was made again", c.Phase, c.Model)
		}
	}
	if b := r.branches(t); len(b) != 2 || !strings.HasSuffix(b[0], "-a") || !strings.HasSuffix(b[1], "-b") {
		t.Fatalf("branches %v; want one per attempt", b)
	}
	r.before.Unchanged(t)
}
