package quorum

import (
	"slices"
	"strings"
)

// A plan given in advance (AgentConfig.Plan): checked and copied here;
// Agent then skips the planning phases and starts at the gate.

// settleGivenPlan checks c.Plan and replaces it with a copy of its own
// (the caller's plan is never written to, nor read after Agent starts),
// and settles the executor: Executor, else the plan's author when a
// participant, else the first of models.
func (c *AgentConfig) settleGivenPlan(models []string) error {
	p := c.Plan
	if c.Solo != "" {
		return invalid("AgentConfig.Solo is %q but AgentConfig.Plan is given: a given plan is carried out as it is, not planned; leave Solo empty", c.Solo)
	}
	if len(p.Steps) == 0 {
		return invalid("AgentConfig.Plan has no steps; give a plan with at least one step, or leave Plan nil to have the models plan")
	}
	for i, st := range p.Steps {
		if strings.TrimSpace(st.Goal) == "" {
			return invalid("step %d of AgentConfig.Plan has no goal; say what each step is for", i+1)
		}
	}
	given := AgentPlan{Title: p.Title, Author: p.Author, Risks: slices.Clone(p.Risks)}
	for _, st := range p.Steps {
		given.Steps = append(given.Steps, AgentStep{Goal: st.Goal, Files: slices.Clone(st.Files), Check: st.Check})
	}
	c.Plan = &given
	if c.Executor == "" && !slices.Contains(models, given.Author) {
		// A plan a person wrote, or one made by models not taking part
		// now: one of the participants carries it out.
		c.Executor = models[0]
	}
	return nil
}
