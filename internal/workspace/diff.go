package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/limitio"
)

// ErrDiffTooLarge is returned by DiffRange when git diff prints more than
// its limit: a diff is refused whole, never cut (a review of part of a
// change would pass what it never saw).
var ErrDiffTooLarge = errors.New("workspace: the diff is larger than the limit")

// DiffRange returns git diff rng (base..head) of the repository at dir,
// as plain text whatever the user's configuration (no colour, no external
// diff tool or text conversion, no file-system monitor, paths as they
// are), at most limit bytes (more is ErrDiffTooLarge). With contained,
// git looks for the repository in dir alone: no GIT_* variable of the
// environment reaches it (GIT_DIR could point elsewhere) and no folder
// above dir is searched.
//
// Its errors: ErrGitMissing; the cause of ctx once ctx ends; a *GitError
// whose Message is what git said, when git fails (an unknown revision,
// not a repository).
func DiffRange(ctx context.Context, dir, rng string, limit int, contained bool) (string, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return "", ErrGitMissing
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", rng, "--"}
	cmd := exec.CommandContext(ctx, path, append([]string{"-c", "core.quotepath=off", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = dir
	if contained {
		cmd.Env = append(withoutGitVariables(os.Environ()), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	}
	out, errOut := &limitio.Buffer{Max: limit}, &limitio.Buffer{Max: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return "", context.Cause(ctx)
	case errors.As(err, &ee):
		return "", &GitError{Args: args, Dir: dir, Message: strings.TrimSpace(errOut.String()), Err: err}
	case err != nil:
		return "", fmt.Errorf("workspace: running git diff %s: %w", rng, err)
	case out.Over():
		return "", ErrDiffTooLarge
	}
	return out.String(), nil
}

// withoutGitVariables is env without its GIT_* variables.
func withoutGitVariables(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return out
}
