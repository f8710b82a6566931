package worktree_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/quorum/worktree"
)

// A worktree for an agent's run: pass repo.Workspace(task, options) as
// quorum.AgentConfig.Workspace, and quorum.Agent carries the approved plan
// out there, committing each step on the worktree's branch.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "worktree-example-")
	defer os.RemoveAll(dir)
	for _, args := range [][]string{{"init", "-q", "-b", "main", "repo"}, {"-C", "repo", "-c", "user.name=Example", "-c", "user.email=example@localhost", "commit", "-q", "--allow-empty", "-m", "initial"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			fmt.Println(err, string(out))
			return
		}
	}
	repo, err := worktree.Open(ctx, filepath.Join(dir, "repo"))
	if err != nil {
		fmt.Println(err)
		return
	}
	// quorum.AgentConfig{…, Workspace: repo.Workspace(task, opts)}
	workspace := repo.Workspace("Write the changelog", worktree.Options{Root: filepath.Join(dir, "worktrees")})
	ws, err := workspace(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.HasPrefix(ws.Branch(), "quorum/agent-"), strings.HasSuffix(ws.Branch(), "write-the-changelog"))
	// Output: true true
}
