// Package models is quorum models: the models the Copilot CLI offers,
// with their names and premium-request multipliers, and the account's
// premium-request allowance when the CLI reports one. Its command is built
// once per run and used by one goroutine.
package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/spf13/cobra"
)

// modelsResult is the result of `quorum models -o json`.
type modelsResult struct {
	Models []modelInfo `json:"models"`
	// Allowance is the account's premium requests this period, when the
	// CLI reports them.
	Allowance *copilot.Quota `json:"allowance,omitempty"`
}

// resultShape is the result's shape for --json's fields: with an
// allowance, which a result without one leaves out.
var resultShape = modelsResult{Allowance: &copilot.Quota{}}

type modelInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Multiplier is how many premium requests one request to the model
	// counts, when the CLI says.
	Multiplier *float64 `json:"multiplier,omitempty"`
}

// ModelsOptions are what quorum models runs with: its invocation (the
// connection settings, --sim, --timeout and the output format).
type ModelsOptions struct {
	*cmdutil.Invocation
}

// NewCmdModels is quorum models; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's).
func NewCmdModels(f *cmdutil.Factory, runF func(*ModelsOptions) error) *cobra.Command {
	return cmdutil.NewCommand(f, &cobra.Command{
		Use:   "models",
		Short: "List the models the Copilot CLI offers",
		Long: `List the models the Copilot CLI offers: the ids that -m and --moderator take,
their names, and how many premium requests (GitHub Copilot's billing unit)
one request to each counts; then the account's premium requests this month,
when the CLI reports them. With -o json:
  {"command": "models", "simulated", "status", "result":
   {"models": [{"id", "name", "multiplier"}],
    "allowance": {"entitlement", "used", "remaining", "unlimited",
                  "overageAllowed", "overage", "resetDate"}}}`,
		Example: `  $ quorum models
  $ quorum models --json models | jq -r '.models[].id'`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Timeout()
		b.Output()
		b.Connects()
	}, Result: resultShape}, func(inv *cmdutil.Invocation) error {
		opts := &ModelsOptions{Invocation: inv}
		if runF != nil {
			return runF(opts)
		}
		return modelsRun(opts)
	})
}

func modelsRun(opts *ModelsOptions) error {
	inv := opts.Invocation
	cn, err := connect.Open(inv)
	if err != nil {
		return err
	}
	defer cn.Close()
	ctx, c := cn.Ctx, cn.Client
	ms, err := connect.ListModels(ctx, inv, c)
	if err != nil {
		return cn.Early(err)
	}
	res := modelsResult{Models: []modelInfo{}}
	for _, m := range ms {
		info := modelInfo{ID: m.ID, Name: m.Name}
		if x, ok := m.Multiplier(); ok {
			info.Multiplier = &x
		}
		res.Models = append(res.Models, info)
	}
	if res.Allowance, err = allowance(ctx, inv, c); err != nil {
		return cn.Early(err)
	}
	if inv.Settings.Output == "json" {
		return inv.WriteJSON(res, cmdutil.StatusOK, "")
	}
	if inv.Settings.Output == "markdown" {
		w := inv.Out
		if inv.Simulated() {
			fmt.Fprint(w, "Simulated models (--sim).\n\n")
		}
		fmt.Fprintln(w, "| ID | Name | Premium requests per request |\n|---|---|---:|")
		for _, m := range res.Models {
			mult := "-"
			if m.Multiplier != nil {
				mult = cmdutil.Num(*m.Multiplier)
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(m.ID), mdCell(m.Name), mult)
		}
		if res.Allowance != nil {
			fmt.Fprintf(w, "\n%s %s.\n", allowanceLabel, res.Allowance)
		}
		return nil
	}
	if inv.Simulated() {
		fmt.Fprintln(inv.Out, "# simulated models (--sim)")
	}
	tw := tabwriter.NewWriter(inv.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREMIUM REQUESTS PER REQUEST")
	for _, m := range res.Models {
		mult := "-"
		if m.Multiplier != nil {
			mult = cmdutil.Num(*m.Multiplier)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", sanitize.Line(m.ID), sanitize.Line(m.Name), mult)
	}
	if err := tw.Flush(); err != nil || res.Allowance == nil {
		return err
	}
	_, err = fmt.Fprintf(inv.Out, "\n%s %s\n", allowanceLabel, res.Allowance)
	return err
}

// allowanceLabel introduces the allowance's line.
const allowanceLabel = "Premium requests this month:"

// allowance is the account's premium-request allowance, nil when the CLI
// reports none. Only the command's time running out fails the command: an
// allowance the CLI could not read is left out, with a warning, since the
// models are what was asked for.
func allowance(ctx context.Context, inv *cmdutil.Invocation, c *copilot.Client) (*copilot.Quota, error) {
	q, err := c.PremiumQuota(ctx)
	switch {
	case err == nil:
		return &q, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("reading the premium-request allowance: %w", err)
	case !errors.Is(err, copilot.ErrNoPremiumQuota):
		fmt.Fprintf(inv.ErrOut, "quorum: warning: the account's premium-request allowance could not be read: %s\n", sanitize.Line(err.Error()))
	}
	return nil, nil
}

// mdCell is text for a Markdown table's cell: one line, pipes escaped.
func mdCell(s string) string {
	return strings.ReplaceAll(sanitize.Line(s), "|", `\|`)
}
