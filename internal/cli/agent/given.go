package agent

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/input"
	"github.com/quorum-go/quorum/internal/cli/planfile"
	"github.com/quorum-go/quorum/quorum"
	"github.com/spf13/cobra"
)

// A plan given with --plan FILE: read before any model is asked, and
// carried out with no planning (quorum.AgentConfig.Plan).

// agentArgs is quorum agent's Args: the task; with --plan it may be left
// out (the saved plan's own task is carried out).
func agentArgs(o *Flags) cobra.PositionalArgs {
	exact := cmdutil.ExactArgs("a task (quote it; - reads it from stdin), or --plan FILE")
	return func(cmd *cobra.Command, args []string) error {
		if o.PlanFile != "" && len(args) == 0 {
			return nil
		}
		return exact(cmd, args)
	}
}

// taskAndPlan reads the task and, with --plan, the plan to carry out (nil
// without it) and where it came from. A plan that cannot be read, or was
// made for another task than the one given, is a usage error saying what
// to do.
func taskAndPlan(inv *cmdutil.Invocation, o *Flags) (task string, plan *quorum.AgentPlan, from string, err error) {
	if o.PlanFile == "" {
		task, err = input.Topic(inv, "task")
		return task, nil, "", err
	}
	switch {
	case o.Solo != "":
		return "", nil, "", cmdutil.Usagef("--solo has a model plan alone, and --plan carries out a plan already made; give one or the other")
	case inv.FlagGiven("max-revisions"):
		return "", nil, "", cmdutil.Usagef("--max-revisions bounds the review of a new plan; a plan given with --plan is carried out as it is: leave --max-revisions out")
	case o.PlanFile == "-" && len(inv.Args) > 0 && inv.Args[0] == "-":
		return "", nil, "", cmdutil.Usagef("the task and the plan cannot both come from stdin; give the task as an argument, or leave it out to carry out the plan's own")
	}
	saved, from, err := readPlan(inv, o.PlanFile)
	if err != nil {
		return "", nil, "", err
	}
	if len(inv.Args) > 0 {
		if task, err = input.Topic(inv, "task"); err != nil {
			return "", nil, "", err
		}
		if recorded := strings.TrimSpace(saved.Task); recorded != "" && recorded != task {
			return "", nil, "", cmdutil.Usagef("the plan in %s was made for the task %s, not %s; leave the task out to carry the plan out for its own, or plan the new task without --plan",
				from, cmdutil.QuoteAll([]string{recorded}), cmdutil.QuoteAll([]string{task}))
		}
	} else if task = strings.TrimSpace(saved.Task); task == "" {
		return "", nil, "", cmdutil.Usagef("%s does not say what task its plan is for (a plan file does not); give the task too: quorum agent --plan %s \"TASK\"", from, o.PlanFile)
	}
	if saved.Simulated && !inv.Simulated() {
		fmt.Fprintf(inv.ErrOut, "quorum: note: the plan in %s was made by the simulator (--sim), not by a model\n", from)
	}
	return task, &saved.Plan, from, nil
}

// readPlan reads the plan at path ("-": stdin) and names where it came
// from, for messages and the result.
func readPlan(inv *cmdutil.Invocation, path string) (planfile.Saved, string, error) {
	var r io.Reader = inv.In
	from := "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return planfile.Saved{}, "", cmdutil.Usagef("cannot read the plan file %s: %v; give the file quorum agent -o json wrote, or a plan file", path, errors.Unwrap(err))
		}
		defer f.Close()
		r, from = f, path
	}
	saved, err := planfile.Load(r, from)
	if errors.Is(err, planfile.ErrNotAPlan) {
		return planfile.Saved{}, "", cmdutil.Usagef("--plan: %s", err.Error())
	}
	return saved, from, err
}
