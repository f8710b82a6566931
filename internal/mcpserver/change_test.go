package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/quorum-go/quorum/internal/testing/testutil"
	"github.com/quorum-go/quorum/quorum"
)

// review's base and head are git diff base..head of the server's
// directory; context files inside it are read, and none outside it.
func TestReviewRange(t *testing.T) {
	dir := gittest.NewRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "notes.md": "Why main is empty.\n"})
	gittest.Write(t, dir, map[string]string{"main.go": "package main\n\n// TODO: handle the error\nfunc main() {}\n"})
	gittest.Git(t, dir, "commit", "-qam", "a change")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	snap := gittest.Take(t, dir)
	f := start(t, nil, func(o *Options) { o.Dir = dir }, nil)
	ctx := testutil.Context(t, guard)

	res := f.call(t, ctx, "review", map[string]any{"base": "HEAD~1", "head": "HEAD", "context": []string{"notes.md"}})
	if res.IsError {
		t.Fatalf("%s", text(res))
	}
	var r quorum.ReviewResult
	decode(t, res, &r)
	if len(r.Inspections) != 3 || r.Change.Files[0].Path != "main.go" {
		t.Errorf("%+v", r)
	}
	res = f.call(t, ctx, "review", map[string]any{"base": "HEAD~1", "context": []string{"link.txt"}})
	if !res.IsError || !strings.Contains(text(res), "lies outside the server's working directory") {
		t.Errorf("a link out: %s", text(res))
	}
	// A directory below the repository's top is not taken for it.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Server{opts: Options{Dir: sub}}
	if _, err := s.gitDiff(ctx, "HEAD~1", ""); err == nil || !strings.Contains(err.Error(), "is not the top of a git repository") {
		t.Errorf("git diff below the repository's top: %v", err)
	}
	snap.Unchanged(t)
}

// A panic in a call is a tool error that says it is a bug, and the
// server goes on: the next call starts the CLI the first one did not.
func TestPanicIsToolError(t *testing.T) {
	var panicked bool
	f := start(t, nil, nil, nil)
	connect := f.s.clis.connect
	f.s.clis.connect = func(ctx context.Context) (*copilot.Client, func(), error) {
		if !panicked {
			panicked = true
			panic("boom")
		}
		return connect(ctx)
	}
	ctx := testutil.Context(t, guard)
	res := f.call(t, ctx, "models", nil)
	if !res.IsError || !strings.Contains(text(res), "this is a bug in quorum") {
		t.Fatalf("%s", text(res))
	}
	if res := f.call(t, ctx, "models", nil); res.IsError {
		t.Fatalf("after the panic: %s", text(res))
	}
}

// A CLI that cannot start fails each call with what the connector said
// to do, and every later call tries again.
func TestStartFailure(t *testing.T) {
	fail := true
	f := start(t, nil, nil, nil)
	connect := f.s.clis.connect
	f.s.clis.connect = func(ctx context.Context) (*copilot.Client, func(), error) {
		if fail {
			return nil, nil, errors.New("the Copilot CLI is not logged in; run copilot login, or add --sim")
		}
		return connect(ctx)
	}
	ctx := testutil.Context(t, guard)
	for tool, args := range map[string]any{"models": nil, "discuss": map[string]any{"topic": "x"}} {
		res := f.call(t, ctx, tool, args)
		if !res.IsError || !strings.Contains(text(res), "run copilot login") {
			t.Errorf("%s: %s", tool, text(res))
		}
	}
	fail = false
	if res := f.call(t, ctx, "models", nil); res.IsError {
		t.Errorf("once the CLI starts: %s", text(res))
	}
}
