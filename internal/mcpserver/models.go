// This file is the models tool, and the models a strategy tool runs:
// what the CLI offers, checked against what the call names.

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// offeredModels lists the ids of the models the CLI offers, and their
// premium-request multipliers, from one models.list.
func offeredModels(ctx context.Context, c *copilot.Client) ([]string, quorum.Multipliers, error) {
	ms, err := c.Models(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("listing the Copilot CLI's models failed: %w; check the CLI's login (copilot login) and network", err)
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, quorum.MultipliersOf(ms), nil
}

// resolveQuorum returns the participants and the moderator of a run,
// checked against what the CLI offers, as the quorum command resolves
// them: the call's, else the configuration's, else (on the simulator) the
// simulated participants, else the first three offered.
func (s *Server) resolveQuorum(offered, models []string, moderator string, moderated bool) ([]string, string, error) {
	st := s.opts.Settings
	if len(models) == 0 {
		models = st.Models
	}
	if moderator == "" && moderated {
		moderator = st.Moderator
	}
	if s.opts.SimDefaults != nil {
		if parts, mod, ok := s.opts.SimDefaults(offered); ok {
			if len(models) == 0 {
				models = parts
			}
			if moderator == "" && moderated {
				moderator = mod
			}
		}
	}
	if len(models) == 0 {
		models = offered[:min(3, len(offered))]
	}
	if !moderated {
		moderator = ""
	}
	check := slices.Clone(models)
	if moderator != "" {
		check = append(check, moderator)
	}
	if err := checkOffered(offered, check...); err != nil {
		return nil, "", err
	}
	seen := map[string]bool{}
	for _, m := range models {
		if seen[m] {
			return nil, "", argError("model %s is named twice in models; name each participant once", m)
		}
		seen[m] = true
	}
	if len(models) < quorum.DefaultMinModels {
		return nil, "", argError("this tool needs at least %d models, got %d (%s); name more in models (the Copilot CLI offers: %s)",
			quorum.DefaultMinModels, len(models), strings.Join(models, ", "), strings.Join(offered, ", "))
	}
	return models, moderator, nil
}

// checkOffered refuses models that the CLI does not offer, listing those
// it does.
func checkOffered(offered []string, models ...string) error {
	var unknown []string
	for _, m := range models {
		if !slices.Contains(offered, m) && !slices.Contains(unknown, m) {
			unknown = append(unknown, m)
		}
	}
	if len(unknown) > 0 {
		return argError("unknown model %s; use one the Copilot CLI offers: %s", strings.Join(unknown, ", "), strings.Join(offered, ", "))
	}
	return nil
}

func (s *Server) models(ctx context.Context, c *call, _ ModelsInput) (*mcp.CallToolResult, *ModelsResult, error) {
	ctx, cancel := runCtx(ctx, c.tool, orDur(s.opts.Settings.Timeout, quorum.DefaultTimeout))
	defer cancel()
	inst, err := s.clis.get(ctx)
	if err != nil {
		return nil, nil, c.notRun(ctx, err)
	}
	ms, err := inst.client.Models(ctx)
	if err != nil {
		return nil, nil, c.notRun(ctx, fmt.Errorf("listing the Copilot CLI's models failed: %w; check the CLI's login (copilot login) and network", err))
	}
	out := &ModelsResult{Models: []ModelInfo{}}
	var md strings.Builder
	if s.opts.Simulated {
		md.WriteString("Simulated models (quorum mcp --sim).\n\n")
	}
	md.WriteString("| id | name | premium requests per request |\n| --- | --- | --- |\n")
	for _, m := range ms {
		info := ModelInfo{ID: m.ID, Name: m.Name}
		if x, ok := m.Multiplier(); ok {
			info.Multiplier = &x
		}
		out.Models = append(out.Models, info)
		mult := "-"
		if info.Multiplier != nil {
			mult = fmt.Sprint(*info.Multiplier)
		}
		fmt.Fprintf(&md, "| %s | %s | %s |\n", cell(info.ID), cell(info.Name), mult)
	}
	// The allowance, when the CLI reports one: one it could not read is
	// left out, as the models are what was asked for; only the call's
	// time running out fails it.
	q, err := inst.client.PremiumQuota(ctx)
	switch {
	case err == nil:
		out.Allowance = &q
		fmt.Fprintf(&md, "\nPremium requests this month: %s.\n", q)
	case ctx.Err() != nil:
		return nil, nil, c.notRun(ctx, fmt.Errorf("reading the premium-request allowance failed: %w", err))
	case !errors.Is(err, copilot.ErrNoPremiumQuota):
		fmt.Fprintf(&md, "\n(The account's premium-request allowance could not be read: %s.)\n", sanitize.Line(err.Error()))
	}
	return &mcp.CallToolResult{Meta: mcp.Meta{"status": "ok", "simulated": s.opts.Simulated},
		Content: []mcp.Content{&mcp.TextContent{Text: md.String()}}}, out, nil
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}
