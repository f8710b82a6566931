package planfile

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

var savedPlan = quorum.AgentPlan{Title: "Docs", Author: "m1", Steps: []quorum.AgentStep{{Goal: "Write RELEASE.md", Files: []string{"RELEASE.md"}, Check: "cat RELEASE.md"}}, Risks: []string{"stale"}}

// Load reads each form a plan is saved in: the command's JSON output, its
// result alone, and the plan file the gate's edit writes.
func TestLoadReadsEachSavedForm(t *testing.T) {
	result := quorum.AgentResult{Task: "Document the release", Stage: quorum.StagePlanned, Plan: &savedPlan}
	envelope, _ := json.Marshal(map[string]any{"command": "agent", "simulated": true, "status": "planned", "error": nil, "result": result})
	alone, _ := json.Marshal(result)
	file, _ := json.MarshalIndent(savedPlan, "", "  ")
	for _, tc := range []struct {
		name, text string
		want       Saved
	}{
		{"the command's output", string(envelope), Saved{Plan: savedPlan, Task: "Document the release", Simulated: true}},
		{"the result alone", string(alone), Saved{Plan: savedPlan, Task: "Document the release"}},
		{"a plan file", string(file), Saved{Plan: savedPlan}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Load(strings.NewReader(tc.text), "plan.json")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// What is not a plan to carry out is refused with ErrNotAPlan, a message
// that names the file, says what is wrong and what to give instead.
func TestLoadRefusesWhatIsNotAPlan(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"empty", " \n", "is empty"},
		{"not JSON", "steps: write it", "is not JSON"},
		{"an array", `[{"goal":"g"}]`, "not an object"},
		{"another command", `{"command":"plan","status":"ok","result":{"task":"t"}}`, `output of quorum "plan"`},
		{"a failed run", `{"command":"agent","status":"failed","result":null}`, "ended before it made a plan"},
		{"stopped while planning", `{"command":"agent","status":"interrupted","result":{"task":"t","stage":"","plan":null}}`, "stopped before the plan was made"},
		{"a plan without steps", `{"command":"agent","result":{"task":"t","plan":{"title":"t","steps":[]}}}`, "has no steps"},
		{"a step without goal", `{"task":"t","plan":{"title":"t","steps":[{"goal":"g"},{"goal":" "}]}}`, "step 2 of plan.json has no goal"},
		{"neither", `{"title":"t"}`, "holds no plan"},
		{"a plan file with a typo", `{"title":"t","steps":[{"goal":"g"}],"riskz":[]}`, "is not the plan's JSON"},
		{"a plan file and more", `{"title":"t","steps":[{"goal":"g"}]} {}`, "is not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(tc.text), "plan.json")
			if !errors.Is(err, ErrNotAPlan) {
				t.Fatalf("err %v, want ErrNotAPlan", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "plan.json ") && !strings.HasPrefix(msg, "step ") || !strings.Contains(msg, "quorum agent -o json") {
				t.Fatalf("message %q; want it to name the file, say %q, and what to give", msg, tc.want)
			}
		})
	}
	big := strings.NewReader(`{"title":"` + strings.Repeat("x", MaxSaved) + `"}`)
	if _, err := Load(big, "big.json"); !errors.Is(err, ErrNotAPlan) || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("a file over the limit: %v", err)
	}
}
