package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/spf13/cobra"
)

// modelsResult is the result of `quorum models -o json`.
type modelsResult struct {
	Models []modelInfo `json:"models"`
}

type modelInfo struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Multiplier is how many premium requests one request to the model
	// counts, when the CLI says.
	Multiplier *float64 `json:"multiplier,omitempty"`
}

func (e *env) modelsCmd() *cobra.Command {
	return e.newCommand(&cobra.Command{
		Use:   "models",
		Short: "List the models the Copilot CLI offers",
		Long: `List the models the Copilot CLI offers: the ids that -m and --moderator take,
their names, and how many premium requests (GitHub Copilot's billing unit)
one request to each counts. With -o json:
  {"command": "models", "simulated", "status", "result":
   {"models": [{"id", "name", "multiplier"}]}}`,
		Example: `  $ quorum models
  $ quorum models --json models | jq -r '.models[].id'`,
		Args: noArgs,
	}, cmdSpec{connects: true, output: true, timeout: true}, runModels)
}

func runModels(inv *invocation) error {
	cn, err := inv.open()
	if err != nil {
		return err
	}
	defer cn.close()
	ctx, c := cn.ctx, cn.client
	ms, err := inv.listModels(ctx, c)
	if err != nil {
		return cn.early(err)
	}
	res := modelsResult{Models: []modelInfo{}}
	for _, m := range ms {
		info := modelInfo{ID: m.ID, Name: m.Name}
		var full protocol.Model
		if json.Unmarshal(m.Raw, &full) == nil && full.Billing != nil {
			info.Multiplier = full.Billing.Multiplier
		}
		res.Models = append(res.Models, info)
	}
	if inv.s.Output == "json" {
		return inv.writeJSON(res, statusOK, "")
	}
	if inv.s.Output == "markdown" {
		w := inv.e.Out
		if inv.simulated() {
			fmt.Fprint(w, "Simulated models (--sim).\n\n")
		}
		fmt.Fprintln(w, "| ID | Name | Premium requests per request |\n|---|---|---:|")
		for _, m := range res.Models {
			mult := "-"
			if m.Multiplier != nil {
				mult = num(*m.Multiplier)
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(m.ID), mdCell(m.Name), mult)
		}
		return nil
	}
	if inv.simulated() {
		fmt.Fprintln(inv.e.Out, "# simulated models (--sim)")
	}
	tw := tabwriter.NewWriter(inv.e.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREMIUM REQUESTS PER REQUEST")
	for _, m := range res.Models {
		mult := "-"
		if m.Multiplier != nil {
			mult = num(*m.Multiplier)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", sanitize.Line(m.ID), sanitize.Line(m.Name), mult)
	}
	return tw.Flush()
}

// mdCell is text for a Markdown table's cell: one line, pipes escaped.
func mdCell(s string) string {
	return strings.ReplaceAll(sanitize.Line(s), "|", `\|`)
}
