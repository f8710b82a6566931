// Package planfile is an agent's plan as a file a person edits: written
// as indented JSON for $EDITOR (or any editor), read back strictly. Both
// gates of the command use it: quorum agent's on a terminal and quorum
// chat's /agent.
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
	var edited quorum.AgentPlan
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&edited); err != nil {
		return quorum.AgentPlan{}, fmt.Errorf("the edited plan is not the plan's JSON (%v); %w", err, ErrUnchanged)
	}
	if _, err := dec.Token(); err != io.EOF { // More would pass a stray } or ]
		return quorum.AgentPlan{}, fmt.Errorf("the edited plan has text after its JSON; %w", ErrUnchanged)
	}
	if len(edited.Steps) == 0 {
		return quorum.AgentPlan{}, fmt.Errorf("the edited plan has no steps; %w", ErrUnchanged)
	}
	for i, st := range edited.Steps {
		if strings.TrimSpace(st.Goal) == "" {
			return quorum.AgentPlan{}, fmt.Errorf("step %d of the edited plan has no goal; %w", i+1, ErrUnchanged)
		}
	}
	return edited, nil
}
