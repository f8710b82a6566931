package quorumtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/copilottest"
	"github.com/quorum-go/quorum/internal/testing/usermodule"
	"github.com/quorum-go/quorum/quorum"
	"github.com/quorum-go/quorum/quorum/quorumtest"
)

// guard only stops a broken test from hanging; nothing asserts on time.
const guard = 30 * time.Second

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), guard)
	t.Cleanup(cancel)
	return ctx
}

// ask asks prompt of a new session on model.
func ask(t *testing.T, srv *copilottest.Server, model, prompt string) (string, error) {
	t.Helper()
	s, err := srv.Client().NewSession(ctxFor(t), copilot.SessionConfig{Model: model})
	if err != nil {
		return "", err
	}
	return s.Ask(ctxFor(t), prompt)
}

// A model of the user's with an id of the quorum models' is a mistake the
// server reports, not one model hiding the other.
func TestAnIDOfTheModels(t *testing.T) {
	_, err := quorumtest.Start(ctxFor(t), copilottest.Model{ID: quorumtest.Moderator, Respond: copilottest.Echo})
	if !errors.Is(err, copilottest.ErrInvalidModel) {
		t.Errorf("err = %v", err)
	}
}

// Models offers the participants and the moderator, each answering a
// plain prompt as the simulated model it is.
func TestModels(t *testing.T) {
	var ids []string
	for _, m := range quorumtest.Models() {
		ids = append(ids, m.ID)
	}
	want := append(quorumtest.Participants(), quorumtest.Moderator)
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Fatalf("Models offers %v, want %v", ids, want)
	}
	srv := quorumtest.NewServer(t)
	for _, id := range ids {
		if a, err := ask(t, srv, id, "What is a quorum?"); err != nil || !strings.HasPrefix(a, "[simulated "+id+"]") {
			t.Errorf("%s answered %q, %v", id, a, err)
		}
	}
}

// TestFromAnotherModule: a module of a user's own runs quorum's strategies
// on the package's models, Agent included, in a workspace of its own.
func TestFromAnotherModule(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	usermodule.Run(t, root, "example.com/decision", filepath.Join("testdata", "usermodule"), "TestQuorumStrategies", "TestQuorumAgent")
}

// The quorum models beside a model of the user's: quorum's strategies run
// on the one, a plain test on the other.
func TestQuorumStrategies(t *testing.T) {
	srv := quorumtest.NewServer(t, copilottest.Model{ID: "mine", Respond: copilottest.Echo})
	ctx := ctxFor(t)
	b := quorum.Copilot(srv.Client())
	cfg := quorumtest.Config()
	if d, err := quorum.Debate(ctx, b, "Tabs beat spaces.", cfg); err != nil || d.Verdict.Moderator != quorumtest.Moderator {
		t.Errorf("debate: %v", err)
	}
	diff := "--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-package x\n+package y\n"
	if r, err := quorum.Review(ctx, b, quorum.Change{Diff: diff}, cfg); err != nil || r.Degraded {
		t.Errorf("review: %+v, %v", r, err)
	}
	if a, err := ask(t, srv, "mine", "hi"); err != nil || a != "echo: hi" {
		t.Errorf("the user's model answered %q, %v", a, err)
	}
}

// dirWorkspace is the smallest quorum.Workspace a user could write: a
// folder, every file in it a new file of the diff. quorum's own is a git
// worktree.
type dirWorkspace struct {
	dir     string
	commits int
}

func (w *dirWorkspace) Dir() string    { return w.dir }
func (w *dirWorkspace) Branch() string { return "agent" }
func (w *dirWorkspace) Base() string   { return "base" }
func (w *dirWorkspace) Contains(path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.dir, path)
	}
	rel, err := filepath.Rel(w.dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
func (w *dirWorkspace) Writable(path string) bool { return w.Contains(path) }
func (w *dirWorkspace) Commit(context.Context, string) (string, bool, error) {
	w.commits++
	return fmt.Sprintf("commit-%d", w.commits), true, nil
}
func (w *dirWorkspace) Diff(context.Context) (string, error) {
	var b strings.Builder
	err := filepath.WalkDir(w.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(w.dir, path)
		lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		fmt.Fprintf(&b, "--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", rel, len(lines))
		for _, l := range lines {
			b.WriteString("+" + l + "\n")
		}
		return nil
	})
	return b.String(), err
}

// Agent runs to its end on the quorum models: planned, approved, carried
// out in the workspace through the built-in tools, reviewed.
func TestQuorumAgent(t *testing.T) {
	srv := quorumtest.NewServer(t)
	dir := t.TempDir()
	a, err := quorum.Agent(ctxFor(t), quorum.Copilot(srv.Client()), "Document how we cut a release", quorum.AgentConfig{
		Config: quorum.Config{Models: quorumtest.Participants()},
		Approve: func(context.Context, quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		},
		Workspace: func(context.Context) (quorum.Workspace, error) { return &dirWorkspace{dir: dir}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Stage != quorum.StageReviewed || len(a.Steps) == 0 {
		t.Errorf("stage %s after %d steps", a.Stage, len(a.Steps))
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
		t.Errorf("the executor wrote nothing in the workspace: %v", err)
	}
}

// The simulated models cost what they cost under --sim: sim-gamma a
// quarter of a premium request a turn, the others one.
func TestModelsCostWhatSimCosts(t *testing.T) {
	srv := quorumtest.NewServer(t)
	m, err := quorum.CopilotMultipliers(context.Background(), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	if m["sim-gamma"] != 0.25 || m["sim-alpha"] != 1 || m[quorumtest.Moderator] != 1 {
		t.Fatalf("multipliers %v", m)
	}
}
