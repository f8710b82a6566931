package worktree_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/quorum"
	"github.com/quorum-go/quorum/quorum/worktree"
)

// The public worktree is the workspace quorum.Agent needs: a folder on a
// new branch, its commits on that branch, its git metadata named for the
// sandbox; the user's repository is left alone.
func TestWorktreeIsAWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := gittest.NewRepo(t, map[string]string{"a.txt": "a\n"})
	before := gittest.Take(t, dir)
	repo, err := worktree.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := repo.Workspace("Add b", worktree.Options{Root: t.TempDir()})(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ws.Branch(), "quorum/agent-") || ws.Base() != repo.Head() {
		t.Fatalf("branch %q from %q; want quorum/agent-… from %s", ws.Branch(), ws.Base(), repo.Head())
	}
	if m, ok := ws.(quorum.MetadataHolder); !ok || len(m.MetadataPaths()) == 0 {
		t.Fatal("the worktree does not name its git metadata for the sandbox")
	}
	os.WriteFile(filepath.Join(ws.Dir(), "b.txt"), []byte("b\n"), 0o644)
	if _, changed, err := ws.Commit(ctx, "add b"); err != nil || !changed {
		t.Fatalf("Commit = %v, %v", changed, err)
	}
	if diff, err := ws.Diff(ctx); err != nil || !strings.Contains(diff, "+b") {
		t.Fatalf("Diff = %q, %v", diff, err)
	}
	before.Unchanged(t)
	if _, err := worktree.Open(ctx, t.TempDir()); !errors.Is(err, worktree.ErrNotRepository) {
		t.Fatalf("Open outside a repository = %v, want ErrNotRepository", err)
	}
}
