package quorum_test

import (
	"slices"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

func TestParsePlan(t *testing.T) {
	cases := []struct {
		name    string
		text    string
		want    quorum.PlanSpec
		ok      bool
		problem string
	}{{
		name: "JSON",
		text: `{"title":"Blue-green","steps":["copy","switch"],"risks":["lag"]}`,
		want: quorum.PlanSpec{Title: "Blue-green", Steps: []string{"copy", "switch"}, Risks: []string{"lag"}}, ok: true,
	}, {
		name: "nested objects in prose",
		text: "Plan:\n{\"plan\": {\"name\": \"Dual write\", \"steps\": [{\"title\": \"Add writes\", \"description\": \"to both\"}, \"Backfill\"], \"risks\": [{\"risk\": \"drift\", \"mitigation\": \"compare\"}]}}",
		want: quorum.PlanSpec{Title: "Dual write", Steps: []string{"Add writes — to both", "Backfill"}, Risks: []string{"drift — mitigation: compare"}}, ok: true,
	}, {
		name: "Markdown",
		text: "# Cutover plan\n\n## Steps\n1. Freeze schema\n2. Replicate\n3. Switch reads\n\n## Risks\n- Replication lag\n- Rollback cost\n",
		want: quorum.PlanSpec{Title: "Cutover plan", Steps: []string{"Freeze schema", "Replicate", "Switch reads"}, Risks: []string{"Replication lag", "Rollback cost"}}, ok: true, problem: "no JSON plan found",
	}, {
		name: "JSON without steps",
		text: `{"title":"Nothing","steps":[]}`,
		want: quorum.PlanSpec{Title: "Nothing", Steps: []string{}, Risks: []string{}}, ok: false, problem: "no steps",
	}, {
		name: "prose only",
		text: "We should just do it.",
		want: quorum.PlanSpec{Steps: []string{}, Risks: []string{}}, ok: false, problem: "no numbered steps",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, problems, ok := quorum.ParsePlan(c.text)
			if ok != c.ok || p.Title != c.want.Title || !slices.Equal(p.Steps, c.want.Steps) || !slices.Equal(p.Risks, c.want.Risks) {
				t.Errorf("got %+v ok=%v, want %+v ok=%v (problems %v)", p, ok, c.want, c.ok, problems)
			}
			if c.problem != "" && !hasProblem(problems, c.problem) {
				t.Errorf("problems %q lack %q", problems, c.problem)
			}
		})
	}
}
