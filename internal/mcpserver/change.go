package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// readChange reads what the review tool reviews: the diff given, or git
// diff base..head of the server's directory, and the context files. It
// reads nothing outside that directory: git is kept from looking for a
// repository above it, and a context path that leads out of it (.., an
// absolute path, a symbolic link) is refused.
func (s *Server) readChange(ctx context.Context, in ReviewInput) (quorum.Change, error) {
	var ch quorum.Change
	switch {
	case in.Diff != "" && in.Base != "":
		return ch, argError("give the change as diff or as base (and head), not both")
	case in.Head != "" && in.Base == "":
		return ch, argError("head needs base: the review is of git diff base..head")
	case in.Diff != "":
		ch.Diff = in.Diff
	case in.Base != "":
		var err error
		if ch.Diff, err = s.gitDiff(ctx, in.Base, in.Head); err != nil {
			return ch, err
		}
	default:
		return ch, argError("the review needs a change: diff (a unified diff as text) or base (a revision of the repository the server runs in; head defaults to HEAD)")
	}
	if strings.TrimSpace(ch.Diff) == "" {
		return ch, argError("the change is empty: nothing to review; check the range, or give the diff")
	}
	dir, err := s.dir()
	if err != nil {
		return ch, err
	}
	for _, p := range in.Context {
		text, err := readInside(dir, p)
		if err != nil {
			return ch, err
		}
		ch.Context = append(ch.Context, quorum.ContextFile{Path: p, Text: text})
	}
	if err := ch.Validate(); err != nil {
		return ch, argError("%s", strings.TrimPrefix(err.Error(), quorum.ErrInvalidConfig.Error()+": "))
	}
	return ch, nil
}

// dir is the server's directory, absolute, symbolic links resolved.
func (s *Server) dir() (string, error) {
	d := s.opts.Dir
	if d == "" {
		var err error
		if d, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("the server's working directory cannot be read (%v); start quorum mcp in the repository to review", err)
		}
	}
	d, err := filepath.Abs(d)
	if err == nil {
		d, err = filepath.EvalSymlinks(d)
	}
	if err != nil {
		return "", fmt.Errorf("the server's working directory cannot be read (%v); start quorum mcp in the repository to review", err)
	}
	return d, nil
}

// readInside reads the file at rel, which must lie inside dir once every
// symbolic link is followed, up to quorum.MaxChangeBytes.
func readInside(dir, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", argError("context path %q must be relative to the server's working directory (%s) and inside it", rel, dir)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
	if err != nil {
		return "", argError("context file %s cannot be read (%v); give a path relative to %s", rel, errors.Unwrap(err), dir)
	}
	if r, err := filepath.Rel(dir, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", argError("context file %s lies outside the server's working directory (%s); only files inside it can be read", rel, dir)
	}
	f, err := os.Open(p)
	if err != nil {
		return "", argError("context file %s cannot be read (%v)", rel, errors.Unwrap(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", argError("context file %s is not a regular file", rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, quorum.MaxChangeBytes+1))
	if err != nil {
		return "", argError("context file %s cannot be read (%v)", rel, err)
	}
	if len(b) > quorum.MaxChangeBytes {
		return "", argError("context file %s is more than 1 MiB, the most a review takes; give fewer or smaller files", rel)
	}
	return string(b), nil
}

// gitDiff runs git diff base..head in the server's directory, which must be
// the top of a git repository.
func (s *Server) gitDiff(ctx context.Context, base, head string) (string, error) {
	if head == "" {
		head = "HEAD"
	}
	for _, rev := range []string{base, head} {
		if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\r\n:") || strings.Contains(rev, "..") {
			return "", argError("base and head take one git revision each (a branch, tag or commit); %q is not one", rev)
		}
	}
	dir, err := s.dir()
	if err != nil {
		return "", err
	}
	rng := base + ".." + head
	// contained: git is kept from taking a repository above dir, or one
	// an environment variable names, for dir's.
	diff, err := workspace.DiffRange(ctx, dir, rng, quorum.MaxChangeBytes, true)
	var ge *workspace.GitError
	switch {
	case errors.Is(err, workspace.ErrGitMissing):
		return "", fmt.Errorf("git was not found on the server's PATH, so git diff %s cannot run; give the change as diff instead", rng)
	case errors.Is(err, workspace.ErrDiffTooLarge):
		return "", argError("git diff %s is more than 1 MiB, the most a review takes; review a smaller range", rng)
	case errors.As(err, &ge) && strings.Contains(ge.Message, "ot a git repository"):
		return "", argError("the server's working directory %s is not the top of a git repository, so git diff %s cannot run there; start quorum mcp in the repository's top folder, or give the change as diff", dir, rng)
	case errors.As(err, &ge):
		msg, _, _ := strings.Cut(ge.Message, "\n")
		return "", argError("git diff %s failed in %s (%s): %s; check the revisions, or give the change as diff (the server reviews the repository it was started in)", rng, dir, ge.Err, msg)
	case err != nil:
		return "", err
	}
	return diff, nil
}
