package planfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/quorum-go/quorum/quorum"
)

// A saved plan, read back to be carried out (quorum agent --plan FILE).

// ErrNotAPlan wraps every reason Load refuses what it reads.
var ErrNotAPlan = errors.New("not a plan to carry out")

// notAPlan is Load's refusal: its message says what is wrong and what to
// give; it wraps ErrNotAPlan without repeating it.
type notAPlan struct{ msg string }

func (e *notAPlan) Error() string { return e.msg }
func (e *notAPlan) Unwrap() error { return ErrNotAPlan }

func refusal(problem error) error {
	return &notAPlan{msg: problem.Error() + "; " + whatToGive}
}

// MaxSaved is the most Load reads: 16 MiB, far above the JSON of a run
// that stopped at its plan, so that a wrong file is refused, not read
// whole.
const MaxSaved = 16 << 20

// whatToGive says what Load takes, for its errors.
const whatToGive = `give the JSON quorum agent -o json printed (a run that stopped at its plan: status "planned"), or a plan file: {"title": …, "steps": [{"goal": …, "files": […], "check": …}], "risks": […]}`

// Saved is a plan read back: the plan; the task it was made for, when
// what was read says it ("" for a plan file); whether the simulator
// (--sim) made it.
type Saved struct {
	Plan      quorum.AgentPlan
	Task      string
	Simulated bool
}

// savedRun is what Load reads of an agent's result.
type savedRun struct {
	Task  string            `json:"task"`
	Stage string            `json:"stage"`
	Plan  *quorum.AgentPlan `json:"plan"`
}

// Load reads a saved plan from r, named name in its errors ("plan.json",
// "stdin"): the JSON quorum agent -o json printed (its result's plan and
// task), that result alone (as --jq .result prints it), or a plan file as
// the gate's edit writes it (read strictly: the plan and nothing else).
// The plan needs a step, and a goal in each. Anything else is an error
// wrapping ErrNotAPlan that says what to give instead.
func Load(r io.Reader, name string) (Saved, error) {
	refuse := func(format string, args ...any) (Saved, error) {
		return Saved{}, refusal(fmt.Errorf("%s %s", name, fmt.Sprintf(format, args...)))
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxSaved+1))
	if err != nil {
		return Saved{}, fmt.Errorf("reading the plan from %s: %w", name, err)
	}
	if len(b) > MaxSaved {
		return refuse("is more than %d bytes (16 MiB), more than any saved plan", MaxSaved)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return refuse("is empty")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return refuse("is not JSON (%v)", err)
		}
		return refuse("is JSON, but not an object")
	}
	var saved Saved
	run := b
	if res, ok := top["result"]; ok { // the command's whole output
		var env struct {
			Command   string `json:"command"`
			Status    string `json:"status"`
			Simulated bool   `json:"simulated"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			return refuse("is not what quorum agent -o json prints (%v)", err)
		}
		if env.Command != "agent" {
			return refuse("is the output of quorum %s, not of quorum agent", quoted(env.Command))
		}
		if bytes.Equal(bytes.TrimSpace(res), []byte("null")) {
			return refuse("holds no result: its run (status %s) ended before it made a plan; plan again with quorum agent TASK", quoted(env.Status))
		}
		saved.Simulated, run = env.Simulated, res
	} else if _, ok := top["plan"]; !ok {
		if _, ok := top["steps"]; !ok {
			return refuse("holds no plan (neither a result's \"plan\" nor a plan's \"steps\")")
		}
		p, err := parse(b, name)
		if err != nil {
			return Saved{}, refusal(err)
		}
		saved.Plan = p
		return saved, nil
	}
	var got savedRun
	if err := json.Unmarshal(run, &got); err != nil {
		return refuse("is not an agent's result (%v)", err)
	}
	if got.Plan == nil {
		return refuse("holds no plan: its run stopped before the plan was made (stage %s); plan again with quorum agent TASK", quoted(got.Stage))
	}
	if err := check(*got.Plan, name); err != nil {
		return Saved{}, refusal(err)
	}
	saved.Plan, saved.Task = *got.Plan, got.Task
	return saved, nil
}

// quoted is s quoted for a message, or "none" when empty.
func quoted(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", s)
}
