package sim

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quorum-go/quorum/internal/limitio"
)

// The git commands the bash tool plays: git status, git diff and git log
// --oneline, run in the session's folder with nothing that lets the
// repository's configuration run a program.

// gitTimeout bounds one simulated git command.
const gitTimeout = 30 * time.Second

// gitFlags are the options each git subcommand the simulator plays may
// take: none of them names a path, runs a program or writes anything.
var gitFlags = map[string][]string{
	"status": {"--short", "-s", "--porcelain", "-b", "--branch"},
	"diff":   {"--stat", "--cached", "--staged", "--name-only", "--name-status", "--numstat", "--shortstat"},
	"log":    {"--oneline"},
}

// gitPlayed returns the git arguments to run for args (after "git"), or
// nil when the simulator does not play them: git status, git diff and git
// log --oneline, with the options of gitFlags (and log's count: -N, -n N,
// --max-count=N).
func gitPlayed(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	sub, rest := args[0], args[1:]
	allowed, ok := gitFlags[sub]
	if !ok {
		return nil
	}
	oneline := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case slices.Contains(allowed, a):
			oneline = oneline || a == "--oneline"
		case sub == "log" && isCount(strings.TrimPrefix(a, "-")) && strings.HasPrefix(a, "-"):
		case sub == "log" && isCount(strings.TrimPrefix(a, "--max-count=")) && strings.HasPrefix(a, "--max-count="):
		case sub == "log" && a == "-n" && i+1 < len(rest) && isCount(rest[i+1]):
			i++
		default:
			return nil
		}
	}
	if sub == "log" && !oneline {
		return nil
	}
	out := []string{sub}
	switch sub {
	case "diff":
		// No external diff program and no textconv filter: either would
		// run a program the repository's configuration names.
		out = append(out, "--no-ext-diff", "--no-textconv")
	case "log":
		out = append(out, "--no-show-signature")
	}
	return append(out, rest...)
}

// isCount reports whether s is a positive count of at most 1000.
func isCount(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && n <= 1000 && s == strconv.Itoa(n)
}

// playGit runs git with args in the folder. Its environment keeps none of
// the process's GIT_ variables (GIT_DIR would point it elsewhere), never
// prompts, takes no optional locks (git status would otherwise refresh the
// index), uses no pager, and runs no fsmonitor hook.
func playGit(ctx context.Context, f folder, args []string) (string, int, *toolFailure) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	full := append([]string{"-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.DevNull, "--no-pager"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = f.real
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "PAGER=cat")
	out := &limitio.Buffer{Max: maxViewBytes}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0, nil
	case errors.As(err, &exit) && ctx.Err() == nil:
		return out.String(), exit.ExitCode(), nil
	case errors.Is(err, exec.ErrNotFound):
		return "bash: git: command not found\n", 127, nil
	}
	return out.String(), 1, failed("git failed: "+err.Error(), "")
}
