package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Chat's rounds: one method a strategy, and round, which they share.

// Discuss runs a discussion round (Discuss) of question.
func (c *Chat) Discuss(ctx context.Context, question string) (*ChatRound, error) {
	return c.round(ctx, RoundDiscuss, question, "", strategy(Discuss, func(r *ChatRound, d *DiscussResult) {
		r.Discuss, r.Usage, r.Conclusion = d, d.Usage, discussConclusion(d)
		d.Question = r.Prompt // the result shows what was asked; Sent keeps the rest
	}))
}

// Plan runs an ensemble-planning round (Plan) of task.
func (c *Chat) Plan(ctx context.Context, task string) (*ChatRound, error) {
	return c.round(ctx, RoundPlan, task, "", strategy(Plan, func(r *ChatRound, p *PlanResult) {
		r.Plan, r.Usage, r.Conclusion = p, p.Usage, planConclusion(p)
		p.Task = r.Prompt
	}))
}

// Debate runs a debate round (Debate) of claim.
func (c *Chat) Debate(ctx context.Context, claim string) (*ChatRound, error) {
	return c.round(ctx, RoundDebate, claim, "", strategy(Debate, func(r *ChatRound, d *DebateResult) {
		r.Debate, r.Usage, r.Conclusion = d, d.Usage, debateConclusion(d)
		d.Claim = r.Prompt
	}))
}

// Review runs a review round (Review) of change; what the chat concluded
// so far reaches the reviewers as a context file. about describes the
// change for the round's record ("main..HEAD").
func (c *Chat) Review(ctx context.Context, change Change, about string) (*ChatRound, error) {
	if strings.TrimSpace(about) == "" {
		about = "a change"
	}
	if err := change.Validate(); err != nil {
		return nil, err
	}
	return c.round(ctx, RoundReview, about, "", func(ctx context.Context, b *chatBackend, sent string, cfg Config, r *ChatRound) error {
		ch := change
		if sent != r.Prompt { // the chat has context to give
			ch.Context = append(slices.Clone(change.Context), ContextFile{Path: "(the conversation so far)", Text: sent})
		}
		rv, err := Review(ctx, b, ch, cfg)
		if rv != nil {
			r.Review, r.Usage, r.Conclusion = rv, rv.Usage, reviewConclusion(rv)
		}
		return err
	})
}

// Agent runs an agent round (Agent) of task: the chat's models plan it
// (their proposals and their review of the result in their kept
// sessions), cfg.Approve approves the plan, and the executor carries it
// out in cfg.Workspace, in a session of its own with the provider's tools.
// The task the models plan carries what the chat concluded so far, so
// that "carry out what we agreed" has something to build on; the round
// concludes with what the agent did (the plan, the branch, what is left
// to fix), for the rounds after it.
//
// cfg.Config is not read: the round runs with the chat's (its models,
// moderator, timeouts and Progress). Everything else of cfg is the
// agent's, as for Agent: a nil Approve stops the round at StagePlanned,
// and cfg.Plan (an earlier round's plan, say) is carried out without
// planning.
func (c *Chat) Agent(ctx context.Context, task string, cfg AgentConfig) (*ChatRound, error) {
	agent := func(ctx context.Context, b Backend, sent string, chatCfg Config) (*AgentResult, error) {
		cfg.Config = chatCfg
		return Agent(ctx, b, sent, cfg)
	}
	return c.round(ctx, RoundAgent, task, "", strategy(agent, func(r *ChatRound, a *AgentResult) {
		a.Task = r.Prompt
		r.Agent, r.Usage, r.Conclusion = a, a.Usage, agentConclusion(a)
	}))
}

// Ask puts text to one model, in its kept session: a round of one turn,
// streamed to Config.Progress as phase PhaseAsk. model must be one of the
// chat's participants ("": the first).
func (c *Chat) Ask(ctx context.Context, model, text string) (*ChatRound, error) {
	c.mu.Lock()
	if model == "" && len(c.cfg.Models) > 0 {
		model = c.cfg.Models[0]
	}
	known := slices.Contains(c.cfg.Models, model)
	c.mu.Unlock()
	if !known {
		return nil, invalid("model %q is not a participant of this chat; ask one of them, or add it with SetModels", model)
	}
	return c.round(ctx, RoundAsk, text, model, func(ctx context.Context, b *chatBackend, sent string, cfg Config, r *ChatRound) error {
		s, err := cfg.settle()
		if err != nil {
			return err
		}
		r.Models, r.Moderator = []string{model}, ""
		ev := newEmitter(s.Progress, s.Transcript)
		start := time.Now()
		ev.emit(Progress{Kind: PhaseStarted, Phase: PhaseAsk, Text: model})
		ev.emit(Progress{Kind: ModelStarted, Phase: PhaseAsk, Model: model, Text: sent, System: s.Prompts.AnswerSystem})
		pctx, cancel := context.WithTimeoutCause(ctx, s.PhaseTimeout,
			fmt.Errorf("%w: no reply within the phase timeout (Config.PhaseTimeout, %v) of the ask phase", ErrTimeout, s.PhaseTimeout))
		reply, err := b.sendKept(pctx, OpenOptions{Model: model, SystemMessage: s.Prompts.AnswerSystem}, sent, func(d string) {
			ev.emit(Progress{Kind: Delta, Phase: PhaseAsk, Model: model, Text: d})
		})
		if err == nil && strings.TrimSpace(reply.Text) == "" {
			err = ErrEmptyReply
		}
		if err != nil && pctx.Err() != nil {
			err = context.Cause(pctx)
		}
		cancel()
		el := time.Since(start)
		a := &ChatAnswer{Model: model, Text: reply.Text, TurnCost: TurnCost{ElapsedMS: el.Milliseconds(), Usage: reply.Usage}}
		fin := Progress{Kind: ModelFinished, Phase: PhaseAsk, Model: model, Text: reply.Text, Elapsed: el, Usage: &a.Usage}
		if err != nil {
			a.Error = err.Error()
			fin.Err = &ModelError{Model: model, Phase: PhaseAsk, Err: err}
		}
		ev.emit(fin)
		ev.emit(Progress{Kind: PhaseFinished, Phase: PhaseAsk, Elapsed: el})
		ev.emit(Progress{Kind: RunFinished, Elapsed: el, Err: err})
		ev.close(ctx, s.CloseTimeout)
		r.Ask, r.Usage = a, reply.Usage
		if err == nil {
			r.Conclusion = reply.Text
		}
		return err
	})
}

// runFunc runs one round's strategy on b with sent, filling r.
type runFunc func(ctx context.Context, b *chatBackend, sent string, cfg Config, r *ChatRound) error

// strategy is the runFunc of a round of one strategy that takes the
// composed prompt as its text: run runs it, and record, given a result
// (also one that comes with an error: a degraded or interrupted run has
// one), records it in the round.
func strategy[R any](run func(context.Context, Backend, string, Config) (*R, error), record func(*ChatRound, *R)) runFunc {
	return func(ctx context.Context, b *chatBackend, sent string, cfg Config, r *ChatRound) error {
		res, err := run(ctx, b, sent, cfg)
		if res != nil {
			record(r, res)
		}
		return err
	}
}

// round runs one round: it composes the prompt from what earlier rounds
// concluded, runs the strategy with the first phase routed to the kept
// sessions, and records and saves the round, also when it failed or was
// cancelled.
//
// only, when set, is the one model the round asks (Ask): the context is
// composed for it alone.
func (c *Chat) round(ctx context.Context, kind RoundKind, text, only string, run runFunc) (*ChatRound, error) {
	if strings.TrimSpace(text) == "" {
		return nil, invalid("the %s round's text is empty", kind)
	}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return nil, ErrChatClosed
	case c.running:
		c.mu.Unlock()
		return nil, ErrRoundRunning
	}
	c.running = true
	cfg := c.cfg.Config
	cfg.Models = slices.Clone(cfg.Models)
	r := &ChatRound{N: len(c.rounds) + 1, Kind: kind, Prompt: text, Models: cfg.Models, Moderator: cfg.Moderator,
		StartedAt: time.Now(), Sessions: map[string]string{}}
	if r.Moderator == "" && (kind == RoundDiscuss || kind == RoundDebate) {
		r.Moderator = cfg.Models[0]
	}
	if kind == RoundPlan || kind == RoundReview || kind == RoundAsk || kind == RoundAgent {
		r.Moderator = ""
	}
	r.Sent = c.composeLocked(text, cfg.Models, only)
	saveErr := c.saveLocked(chatRecord{Type: recStarted, Round: &ChatRound{N: r.N, Kind: kind, Prompt: text, Models: r.Models, StartedAt: r.StartedAt}})
	c.mu.Unlock()

	cb := &chatBackend{c: c, inner: c.b, round: r}
	err := run(ctx, cb, r.Sent, cfg, r)
	r.ElapsedMS = time.Since(r.StartedAt).Milliseconds()
	r.Status = roundStatus(ctx, r, err)
	if err != nil {
		r.Error = err.Error()
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = false
	r.Sessions = cb.sessions()
	for m := range r.Sessions {
		// An interrupted turn may have ended before its prompt reached the
		// session: the round does not count as seen, and the next round
		// tells again what its prompt carried (repeating, never losing).
		if ks := c.kept[m]; ks != nil && ks.conv != nil && r.Status != RoundInterrupted {
			ks.upTo = r.N
		}
	}
	c.rounds = append(c.rounds, *r)
	if werr := c.saveLocked(chatRecord{Type: recRound, Round: r}); werr != nil && saveErr == nil {
		saveErr = werr
	}
	if err == nil && saveErr != nil {
		err = saveErr
	}
	return r, err
}

// roundStatus says how a round ended.
func roundStatus(ctx context.Context, r *ChatRound, err error) string {
	var out *Outcome
	switch {
	case r.Discuss != nil:
		out = &r.Discuss.Outcome
	case r.Plan != nil:
		out = &r.Plan.Outcome
	case r.Debate != nil:
		out = &r.Debate.Outcome
	case r.Review != nil:
		out = &r.Review.Outcome
	case r.Agent != nil:
		out = &r.Agent.Outcome
	}
	switch {
	case err != nil && errors.Is(ctx.Err(), context.Canceled):
		return RoundInterrupted
	case err != nil:
		return RoundFailed
	case out != nil && out.Degraded:
		return RoundDegraded
	}
	return RoundOK
}
