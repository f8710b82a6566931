package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
)

func runModels(ctx context.Context, inv *invocation) error {
	if len(inv.args) > 0 {
		return usagef("quorum models takes no arguments")
	}
	ctx, cancel := context.WithTimeout(ctx, inv.cfg.duration("timeout"))
	defer cancel()
	c, closeClient, err := inv.connect(ctx)
	if err != nil {
		return err
	}
	defer closeClient()
	ms, err := c.Models(ctx)
	if err != nil {
		return err
	}
	if inv.cfg.str("output") == "json" {
		type model struct {
			ID   string `json:"id"`
			Name string `json:"name,omitempty"`
		}
		out := struct {
			Simulated bool    `json:"simulated"`
			Models    []model `json:"models"`
		}{Simulated: inv.simulated(), Models: []model{}}
		for _, m := range ms {
			out.Models = append(out.Models, model{m.ID, m.Name})
		}
		enc := json.NewEncoder(inv.e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if inv.simulated() {
		fmt.Fprintln(inv.e.stdout, "# simulated models (--sim)")
	}
	tw := tabwriter.NewWriter(inv.e.stdout, 0, 4, 2, ' ', 0)
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\n", m.ID, m.Name)
	}
	return tw.Flush()
}
