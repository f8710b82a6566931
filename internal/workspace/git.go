package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// ErrGitMissing is returned when the git program cannot be found.
var ErrGitMissing = errors.New("workspace: git is not installed or not on PATH; install git (agent mode works in a git worktree)")

// git runs git in dir and returns its standard output. Its failure names
// the command and carries git's own message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitBytes(ctx, dir, args...)
	return string(out), err
}

// noHooks is an empty folder for core.hooksPath: git finds no hook there.
// Made once per process, lazily, and never removed (it is empty).
var noHooks = sync.OnceValues(func() (string, error) {
	return os.MkdirTemp("", "quorum-nohooks-")
})

func gitBytes(ctx context.Context, dir string, args ...string) ([]byte, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrGitMissing
	}
	hooks, err := noHooks()
	if err != nil {
		return nil, fmt.Errorf("workspace: making an empty hooks folder: %w", err)
	}
	full := append([]string{
		"-c", "core.hooksPath=" + hooks,
		"-c", "commit.gpgSign=false",
		"-c", "tag.gpgSign=false",
		"-c", "core.quotePath=false",
	}, args...)
	cmd := exec.CommandContext(ctx, path, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_TERMINAL_PROMPT=0", // never wait for a credential on a terminal
		"GIT_OPTIONAL_LOCKS=0",  // a status read takes no lock the user's git could trip on
		"LC_ALL=C",              // messages this package reads are git's English ones
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("workspace: git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.Bytes(), &GitError{Args: args, Dir: dir, Message: msg, Err: err}
	}
	return stdout.Bytes(), nil
}

// GitError is a git command that failed: its arguments, the folder it ran
// in, and what git said.
type GitError struct {
	Args    []string
	Dir     string
	Message string
	Err     error
}

func (e *GitError) Error() string {
	return fmt.Sprintf("workspace: git %s (in %s): %s", strings.Join(e.Args, " "), e.Dir, e.Message)
}

func (e *GitError) Unwrap() error { return e.Err }
