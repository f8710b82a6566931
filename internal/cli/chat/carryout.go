package chat

import (
	"context"
	"errors"
	"fmt"

	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// /agent --plan: the plan an earlier /agent round stopped at (rejected,
// or left at the gate when the round was cancelled, also in a resumed
// chat), carried out as it is, with no planning.

// carryOut runs /agent --plan as an /agent round of the earlier round's
// task, its plan given (quorum.AgentConfig.Plan) and carried out in as
// many attempts as /agent --attempts N --plan asks (0: one); the gate
// asks as usual.
func carryOut(ctx context.Context, o *Options, c *quorum.Chat, attempts int) (*quorum.ChatRound, error) {
	task, plan, from, err := lastPlan(c.Rounds())
	if err != nil {
		return nil, err
	}
	cfg, err := agentConfig(ctx, o, task)
	if err != nil {
		return nil, err
	}
	cfg.Plan, cfg.PlanFrom, cfg.Attempts = plan, from, attempts
	return c.Agent(ctx, task, cfg)
}

// lastPlan is the plan of the chat's last /agent round, with its task and
// where it came from; an error says why there is none to carry out.
func lastPlan(rounds []quorum.ChatRound) (task string, plan *quorum.AgentPlan, from string, err error) {
	for i := len(rounds) - 1; i >= 0; i-- {
		r := rounds[i]
		if r.Kind != quorum.RoundAgent {
			continue
		}
		a := r.Agent
		switch {
		case a == nil || a.Plan == nil:
			return "", nil, "", fmt.Errorf("the last /agent round (round %d) made no plan to carry out; /agent TASK plans again", r.N)
		case a.Workspace != nil:
			return "", nil, "", fmt.Errorf("the plan of the last /agent round (round %d) was carried out already, on branch %s; /agent TASK plans anew", r.N, sanitize.Line(a.Workspace.Branch))
		}
		return r.Prompt, a.Plan, fmt.Sprintf("round %d of this chat", r.N), nil
	}
	return "", nil, "", errors.New("no /agent round has made a plan yet; /agent TASK plans one, and /agent --plan then carries out the plan it stopped at")
}
