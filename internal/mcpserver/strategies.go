// This file runs the strategy tools (discuss, plan, debate, review):
// their configuration, the run with progress, and the status and advice
// of a run that ended early.

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
)

func (s *Server) discuss(ctx context.Context, c *call, in DiscussInput) (*mcp.CallToolResult, *quorum.DiscussResult, error) {
	if strings.TrimSpace(in.Topic) == "" {
		return nil, nil, argError("topic is empty; give the question to discuss")
	}
	if in.Reviewers < 0 {
		return nil, nil, argError("reviewers must be 0 (every other answer) or a positive number")
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds, in.MaxPremium)
	if err != nil {
		return nil, nil, err
	}
	cfg.NoReview, cfg.AnswersPerReviewer = in.NoReview, in.Reviewers
	return runStrategy(ctx, c, "discussion", in.Models, in.Moderator, true, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.DiscussResult, error) {
		return quorum.Discuss(ctx, b, in.Topic, cfg)
	}, report.Discuss, func(r *quorum.DiscussResult) *quorum.Outcome { return &r.Outcome })
}

func (s *Server) plan(ctx context.Context, c *call, in PlanInput) (*mcp.CallToolResult, *quorum.PlanResult, error) {
	if strings.TrimSpace(in.Task) == "" {
		return nil, nil, argError("task is empty; give the task to plan")
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds, in.MaxPremium)
	if err != nil {
		return nil, nil, err
	}
	return runStrategy(ctx, c, "plan", in.Models, "", false, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.PlanResult, error) {
		return quorum.Plan(ctx, b, in.Task, cfg)
	}, report.Plan, func(r *quorum.PlanResult) *quorum.Outcome { return &r.Outcome })
}

func (s *Server) debate(ctx context.Context, c *call, in DebateInput) (*mcp.CallToolResult, *quorum.DebateResult, error) {
	if strings.TrimSpace(in.Claim) == "" {
		return nil, nil, argError("claim is empty; give the claim to debate")
	}
	if in.Rounds < 0 || in.Rounds > quorum.MaxRounds {
		return nil, nil, argError("rounds must be between 1 and %d (or left out for the default)", quorum.MaxRounds)
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds, in.MaxPremium)
	if err != nil {
		return nil, nil, err
	}
	cfg.Rounds = in.Rounds
	return runStrategy(ctx, c, "debate", in.Models, in.Moderator, true, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.DebateResult, error) {
		return quorum.Debate(ctx, b, in.Claim, cfg)
	}, report.Debate, func(r *quorum.DebateResult) *quorum.Outcome { return &r.Outcome })
}

func (s *Server) review(ctx context.Context, c *call, in ReviewInput) (*mcp.CallToolResult, *quorum.ReviewResult, error) {
	ch, err := s.readChange(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.quorumConfig(in.PhaseTimeoutSeconds, in.TimeoutSeconds, in.MaxPremium)
	if err != nil {
		return nil, nil, err
	}
	return runStrategy(ctx, c, "review", in.Models, "", false, cfg, func(ctx context.Context, b quorum.Backend, cfg quorum.Config) (*quorum.ReviewResult, error) {
		return quorum.Review(ctx, b, ch, cfg)
	}, report.Review, func(r *quorum.ReviewResult) *quorum.Outcome { return &r.Outcome })
}

// quorumConfig is a run's Config from the settings and the call's limits.
func (s *Server) quorumConfig(phaseSeconds, totalSeconds int, maxPremium float64) (quorum.Config, error) {
	phase, total, err := limits(phaseSeconds, totalSeconds)
	if err != nil {
		return quorum.Config{}, err
	}
	if maxPremium < 0 {
		return quorum.Config{}, argError("maxPremium is %v; give the most premium requests the call may spend, or leave it out", maxPremium)
	}
	st := s.opts.Settings
	if maxPremium == 0 {
		maxPremium = st.MaxPremium
	}
	return quorum.Config{
		MaxPremium:     maxPremium,
		NoEarlyStop:    !st.EarlyStop,
		PhaseTimeout:   orDur(phase, orDur(st.PhaseTimeout, quorum.DefaultPhaseTimeout)),
		Timeout:        orDur(total, orDur(st.Timeout, quorum.DefaultTimeout)),
		MaxConcurrency: orInt(st.Concurrency, quorum.DefaultMaxConcurrency),
		CloseTimeout:   s.opts.CloseTimeout,
	}, nil
}

// runStrategy runs one of quorum's strategies for a call: the CLI, the
// models checked, a slot, progress, then the result with its report.
func runStrategy[R any](ctx context.Context, c *call, noun string, models []string, moderator string, moderated bool, cfg quorum.Config,
	run func(context.Context, quorum.Backend, quorum.Config) (*R, error), rep func(*R) report.Report, outcome func(*R) *quorum.Outcome,
) (*mcp.CallToolResult, *R, error) {
	s := c.s
	ctx, cancel := runCtx(ctx, c.tool, cfg.Timeout)
	defer cancel()
	release, err := s.slot(ctx, c.tool)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	defer release()
	inst, err := s.clis.get(ctx)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	offered, mult, err := offeredModels(ctx, inst.client)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	cfg.Models, cfg.Moderator, err = s.resolveQuorum(offered, models, moderator, moderated)
	if err != nil {
		return nil, nil, err
	}
	cfg.Multipliers = mult
	cfg.Progress = c.progress.event
	r, runErr := run(ctx, quorum.Copilot(inst.client), cfg)
	if r == nil {
		if runErr == nil {
			runErr = errors.New("the run returned no result")
		}
		if errors.Is(runErr, quorum.ErrInvalidConfig) {
			return nil, nil, argError("%s", strings.TrimPrefix(runErr.Error(), "quorum: "))
		}
		return nil, nil, c.notRun(ctx, runErr)
	}
	out := outcome(r)
	status, incomplete := statusOf(noun, out, runErr, ctx, inst)
	var md strings.Builder
	report.Markdown(&md, rep(r), report.Options{Simulated: s.opts.Simulated, Incomplete: incomplete})
	res := &mcp.CallToolResult{Meta: mcp.Meta{"status": status, "simulated": s.opts.Simulated}}
	if incomplete != "" {
		res.IsError = true
		res.Content = append(res.Content, &mcp.TextContent{Text: incomplete + " " + advice(runErr, inst)})
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: md.String()})
	return res, r, nil
}

// notRun is the tool error of a call that stopped before its run started:
// the CLI would not start, the models could not be listed, or the call was
// cancelled or timed out while it waited.
func (c *call) notRun(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause
		}
		if errors.Is(err, quorum.ErrTimeout) {
			return fmt.Errorf("%s before any model was asked", strings.TrimPrefix(err.Error(), "quorum: time limit reached: "))
		}
	}
	if errors.Is(err, copilot.ErrStopped) {
		return fmt.Errorf("the Copilot CLI stopped (%v); the next call starts a new one: call the tool again", err)
	}
	return err
}

// statusOf is how a run ended, as the JSON envelope of `quorum … -o json`
// says it (ok, degraded, failed, interrupted), and, when it did not
// finish, why.
func statusOf(noun string, out *quorum.Outcome, runErr error, ctx context.Context, inst *cliInstance) (status, incomplete string) {
	phase := "before its first phase"
	if n := len(out.Phases); n > 0 {
		phase = "in the " + string(out.Phases[n-1].Phase) + " phase"
	}
	var tf *quorum.TooFewError
	switch {
	case runErr == nil && out.Degraded:
		return "degraded", ""
	case runErr == nil:
		return "ok", ""
	case inst.isDead():
		return "failed", fmt.Sprintf("The %s failed %s: the Copilot CLI stopped during the call.", noun, phase)
	case errors.Is(runErr, quorum.ErrTimeout) && pastDeadline(ctx):
		return "failed", fmt.Sprintf("The %s took longer than its timeout and was stopped %s; what was collected is below.", noun, phase)
	case ctx.Err() != nil:
		return "interrupted", fmt.Sprintf("The %s was cancelled %s.", noun, phase)
	case errors.As(runErr, &tf):
		return "failed", fmt.Sprintf("The %s failed %s: %s.", noun, phase, strings.TrimPrefix(tf.Error(), "quorum: "))
	case errors.Is(runErr, quorum.ErrPremiumCap):
		return "degraded", fmt.Sprintf("The %s stopped at the premium-request cap (maxPremium) %s; what was collected is below.", noun, phase)
	}
	return "failed", fmt.Sprintf("The %s failed %s: %s.", noun, phase, strings.TrimPrefix(runErr.Error(), "quorum: "))
}

// pastDeadline reports whether ctx's deadline has passed: quorum's own
// Config.Timeout, the same as the call's, may fire a moment before ctx's.
func pastDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || (ok && !time.Now().Before(d))
}

// advice is what to do after a run that did not finish.
func advice(runErr error, inst *cliInstance) string {
	switch {
	case inst.isDead():
		return "The server starts a new Copilot CLI on the next call: call the tool again."
	case errors.Is(runErr, quorum.ErrTimeout):
		return "Raise timeoutSeconds, or lower phaseTimeoutSeconds so that slow models are dropped sooner."
	case errors.Is(runErr, quorum.ErrTooFewModels):
		return "Check the model ids (the models tool lists them), raise phaseTimeoutSeconds, or name more models."
	}
	return "The report below shows what was collected and each model's failure."
}
