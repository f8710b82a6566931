package planfile

import (
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/quorum-go/quorum/quorum"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestWriteThenReadIsThePlan(t *testing.T) {
	plan := quorum.AgentPlan{Title: "Docs <&>", Author: "m1", Steps: []quorum.AgentStep{{Goal: "Write RELEASE.md", Files: []string{"RELEASE.md"}, Check: "cat RELEASE.md"}}, Risks: []string{}}
	path, err := Write(plan)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the plan's file: %v, mode %v; want 0600", err, fi.Mode())
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, plan) {
		t.Fatalf("read back %+v, want %+v", got, plan)
	}
}

func TestReadRefusesWhatIsNotAPlan(t *testing.T) {
	for name, text := range map[string]string{
		"not JSON":      "steps: write it",
		"unknown field": `{"title":"t","steps":[{"goal":"g"}],"stepz":[]}`,
		"no steps":      `{"title":"t","steps":[]}`,
		"blank goal":    `{"title":"t","steps":[{"goal":"g"},{"goal":"  "}]}`,
		"trailing text": `{"title":"t","steps":[{"goal":"g"}]} and more`,
		"trailing }":    `{"title":"t","steps":[{"goal":"g"}]}}`,
		"trailing ]":    `{"title":"t","steps":[{"goal":"g"}]}]`,
	} {
		t.Run(name, func(t *testing.T) {
			path := t.TempDir() + "/plan.json"
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(path); !errors.Is(err, ErrUnchanged) {
				t.Fatalf("Read(%q) = %v, want an error wrapping ErrUnchanged", text, err)
			}
		})
	}
	if _, err := Read(t.TempDir() + "/missing.json"); !errors.Is(err, ErrUnchanged) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}
