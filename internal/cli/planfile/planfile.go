// Package planfile is an agent's plan as a file a person edits: written
// as indented JSON for $EDITOR (or any editor), read back strictly. Both
// gates of the command use it: quorum agent's on a terminal and quorum
// chat's /agent. Load reads a plan saved to be carried out later (quorum
// agent --plan): such a file, or the JSON quorum agent -o json printed.
// Its functions hold no state: any goroutine may call them.
package planfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// ErrUnchanged wraps every reason an edited plan is refused: the plan
// stays as it was.
var ErrUnchanged = errors.New("the plan is unchanged")

// Write writes plan to a new file in the temporary folder, mode 0600, and
// returns its path; the caller removes it.
func Write(plan quorum.AgentPlan) (string, error) {
	f, err := os.CreateTemp("", "quorum-plan-*.json")
	if err != nil {
		return "", fmt.Errorf("making a file to edit the plan in: %w", err)
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err = enc.Encode(plan)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("writing the plan to edit: %w", err)
	}
	return f.Name(), nil
}

// Read reads the plan at path back: the plan's JSON and nothing else, at
// least one step, every step with a goal. A plan that does not read is an
// error wrapping ErrUnchanged, saying what is wrong.
func Read(path string) (quorum.AgentPlan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return quorum.AgentPlan{}, fmt.Errorf("reading the edited plan: %w; %w", err, ErrUnchanged)
	}
	edited, err := parse(b, "the edited plan")
	if err != nil {
		return quorum.AgentPlan{}, fmt.Errorf("%w; %w", err, ErrUnchanged)
	}
	return edited, nil
}

// parse reads a plan's JSON, strictly: the plan and nothing else, at
// least one step, every step with a goal. what names the plan in errors
// ("the edited plan").
func parse(b []byte, what string) (quorum.AgentPlan, error) {
	var p quorum.AgentPlan
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return quorum.AgentPlan{}, fmt.Errorf("%s is not the plan's JSON (%v)", what, err)
	}
	if _, err := dec.Token(); err != io.EOF { // More would pass a stray } or ]
		return quorum.AgentPlan{}, fmt.Errorf("%s has text after its JSON", what)
	}
	if err := check(p, what); err != nil {
		return quorum.AgentPlan{}, err
	}
	return p, nil
}

// check says what keeps p from being carried out: no step, or a step
// without a goal.
func check(p quorum.AgentPlan, what string) error {
	if len(p.Steps) == 0 {
		return fmt.Errorf("%s has no steps", what)
	}
	for i, st := range p.Steps {
		if strings.TrimSpace(st.Goal) == "" {
			return fmt.Errorf("step %d of %s has no goal", i+1, what)
		}
	}
	return nil
}
