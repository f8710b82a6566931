package quorum_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/quorum"
	"github.com/quorum-go/quorum/quorum/quorumtest"
)

// An agent on simulated models, in a workspace of its own: the models
// plan, review and revise the plan, it is approved, the simulated executor
// carries it out in the workspace, every action it asks for is decided by
// the gate, and the other models review the result.
func ExampleAgent() {
	ctx := context.Background()
	srv, err := quorumtest.Start(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close() // and its client

	dir, err := os.MkdirTemp("", "agent-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	task := "Document how we cut a release"
	a, err := quorum.Agent(ctx, quorum.Copilot(srv.Client()), task, quorum.AgentConfig{
		Config: quorum.Config{Models: quorumtest.Participants()},
		// The human gate: a real program shows the plan and asks.
		Approve: func(ctx context.Context, p quorum.AgentPlan) (quorum.Approval, error) {
			return quorum.Approval{Verdict: quorum.ApprovalApproved}, nil
		},
		Workspace: func(ctx context.Context) (quorum.Workspace, error) {
			return newGitWorkspace(ctx, filepath.Join(dir, "work"))
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stage %s, plan by %s, %d review rounds\n", a.Stage, a.Plan.Author, len(a.PlanReviews))
	for _, st := range a.Steps {
		fmt.Printf("%s %d: %d tool calls, committed: %v\n", st.Round, st.Step, len(st.Tools), st.Commit != "")
	}
	for _, rec := range a.Actions[:5] {
		fmt.Printf("%s: allowed %v by %s\n", rec.Action.Kind, rec.Allow, rec.By)
	}
	fmt.Printf("reviewed by %d models, %d findings left\n", len(a.Reviews[0].Inspections), len(a.Findings))
	// Output:
	// stage reviewed, plan by sim-gamma, 2 review rounds
	// execute 1: 5 tool calls, committed: true
	// execute 2: 2 tool calls, committed: true
	// execute 3: 2 tool calls, committed: true
	// read: allowed true by policy
	// write: allowed true by policy
	// read: allowed false by policy
	// shell: allowed true by quorum
	// url: allowed false by policy
	// reviewed by 2 models, 0 findings left
}

// gitWorkspace is a quorum.Workspace: a new git repository where the agent
// works, on a branch of its own, each step committed. (Run an agent on
// your own repository's code in a git worktree of it instead: git
// worktree add, then the same methods.)
type gitWorkspace struct{ dir, base string }

// newGitWorkspace makes dir a repository with one empty commit, the base.
func newGitWorkspace(ctx context.Context, dir string) (*gitWorkspace, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	dir, err := filepath.EvalSymlinks(dir) // Contains compares real paths
	if err != nil {
		return nil, err
	}
	w := &gitWorkspace{dir: dir}
	if _, err := w.git(ctx, "init", "-q", "-b", w.Branch()); err != nil {
		return nil, err
	}
	if _, err := w.git(ctx, "commit", "-q", "--allow-empty", "-m", "base"); err != nil {
		return nil, err
	}
	base, err := w.git(ctx, "rev-parse", "HEAD")
	w.base = strings.TrimSpace(base)
	return w, err
}

func (w *gitWorkspace) Dir() string    { return w.dir }
func (w *gitWorkspace) Branch() string { return "agent" }
func (w *gitWorkspace) Base() string   { return w.base }

// Contains reports whether path is in the workspace, following symbolic
// links, so that a link to a folder outside is seen for where it leads.
func (w *gitWorkspace) Contains(path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.dir, path)
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if parent, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(parent, filepath.Base(path)) // a file yet to be created
	} else {
		return false
	}
	return within(w.dir, path)
}

// Writable is Contains, less the repository's own .git folder.
func (w *gitWorkspace) Writable(path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.dir, path)
	}
	return w.Contains(path) && !within(filepath.Join(w.dir, ".git"), path)
}

func (w *gitWorkspace) Commit(ctx context.Context, message string) (string, bool, error) {
	if _, err := w.git(ctx, "add", "-A"); err != nil {
		return "", false, err
	}
	if status, err := w.git(ctx, "status", "--porcelain"); err != nil || status == "" {
		return "", false, err
	}
	if _, err := w.git(ctx, "commit", "-q", "-m", message); err != nil {
		return "", false, err
	}
	commit, err := w.git(ctx, "rev-parse", "HEAD")
	return strings.TrimSpace(commit), err == nil, err
}

func (w *gitWorkspace) Diff(ctx context.Context) (string, error) {
	return w.git(ctx, "diff", w.base, "HEAD")
}

// git runs git in the workspace, as a committer of its own.
func (w *gitWorkspace) git(ctx context.Context, args ...string) (string, error) {
	args = append([]string{"-C", w.dir, "-c", "user.name=Agent", "-c", "user.email=agent@localhost", "-c", "commit.gpgsign=false"}, args...)
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args[7:], " "), err)
	}
	return string(out), nil
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
