// This file is the ask tool: one model, one question.

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/quorum"
)

func (s *Server) ask(ctx context.Context, c *call, in AskInput) (*mcp.CallToolResult, *AskResult, error) {
	if strings.TrimSpace(in.Question) == "" {
		return nil, nil, argError("question is empty; give the question to ask")
	}
	_, timeout, err := limits(0, in.TimeoutSeconds)
	if err != nil {
		return nil, nil, err
	}
	timeout = orDur(timeout, orDur(s.opts.Settings.Timeout, quorum.DefaultTimeout))
	ctx, cancel := runCtx(ctx, c.tool, timeout)
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
	model := in.Model
	if model == "" && len(s.opts.Settings.Models) > 0 {
		model = s.opts.Settings.Models[0]
	}
	if model == "" {
		if len(offered) == 0 {
			return nil, nil, errors.New("the Copilot CLI offers no models; check its login (copilot login)")
		}
		model = offered[0]
	}
	if err := s.checkAskCap(model, mult, in.MaxPremium); err != nil {
		return nil, nil, err
	}
	if err := checkOffered(offered, model); err != nil {
		return nil, nil, err
	}
	c.progress.step("asking " + model)
	sess, err := inst.client.NewSession(ctx, copilot.SessionConfig{Model: model, BuiltinTools: copilot.NoBuiltinTools(), Permissions: copilot.DenyAll})
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.CloseTimeout)
		defer cancel()
		sess.Destroy(dctx)
	}()
	var streamed strings.Builder
	start := time.Now()
	r, runErr := sess.Stream(ctx, in.Question, copilot.TurnHandlers{OnDelta: func(d string) { streamed.WriteString(d) }})
	if r.Text == "" {
		r.Text = streamed.String() // cut short: what had streamed
	}
	u := quorum.Usage{Calls: 1, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
		CacheReadTokens: r.Usage.CacheReadTokens, CacheWriteTokens: r.Usage.CacheWriteTokens, Cost: r.Usage.Cost}
	out := &AskResult{Model: model, Question: in.Question, Answer: r.Text, TurnCost: quorum.TurnCost{ElapsedMS: time.Since(start).Milliseconds(), Usage: u}}
	status := "ok"
	res := &mcp.CallToolResult{}
	if runErr != nil {
		res.IsError = true
		switch {
		case inst.isDead():
			status = "failed"
			res.Content = append(res.Content, &mcp.TextContent{Text: "The answer is incomplete: the Copilot CLI stopped during the call. The server starts a new one on the next call: call the tool again."})
		case errors.Is(context.Cause(ctx), quorum.ErrTimeout):
			status = "failed"
			res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("The answer is incomplete: the call took longer than its timeout (%v); raise timeoutSeconds.", timeout)})
		case ctx.Err() != nil:
			status = "interrupted"
			res.Content = append(res.Content, &mcp.TextContent{Text: "The answer is incomplete: the call was cancelled."})
		default:
			status = "failed"
			res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("The answer is incomplete: the turn of %s failed: %v. Check the model id (the models tool lists them) and the CLI's login.", model, runErr)})
		}
	}
	res.Meta = mcp.Meta{"status": status, "simulated": s.opts.Simulated}
	res.Content = append(res.Content, &mcp.TextContent{Text: r.Text})
	return res, out, nil
}

// checkAskCap refuses a question whose model costs more premium requests
// than the call's cap (maxPremium, else the user's max-premium setting).
func (s *Server) checkAskCap(model string, m quorum.Multipliers, maxPremium float64) error {
	if maxPremium < 0 {
		return argError("maxPremium is %v; give the most premium requests the call may spend, or leave it out", maxPremium)
	}
	if maxPremium == 0 {
		maxPremium = s.opts.Settings.MaxPremium
	}
	if maxPremium == 0 {
		return nil
	}
	if e := quorum.EstimateAsk(model, m, maxPremium); !e.Fits() {
		return fmt.Errorf("%w: a question to %s costs %v premium requests, more than maxPremium %v; raise it or ask a cheaper model (the models tool lists them)", quorum.ErrPremiumCap, model, e.Premium.Max, maxPremium)
	}
	return nil
}
