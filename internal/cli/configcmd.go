package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
)

func runConfig(_ context.Context, inv *invocation) error {
	eff := inv.cfg.effective()
	if inv.cfg.str("output") == "json" {
		enc := json.NewEncoder(inv.e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			File     string    `json:"file"`
			Settings []setting `json:"settings"`
		}{inv.cfg.path, eff})
	}
	fmt.Fprintf(inv.e.stdout, "config file: %s\n\n", inv.cfg.path)
	tw := tabwriter.NewWriter(inv.e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tFROM")
	for _, s := range eff {
		from := s.Source
		if s.Detail != "" {
			from += " " + s.Detail
		}
		v := s.Value
		if v == "" {
			v = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, v, from)
	}
	return tw.Flush()
}
