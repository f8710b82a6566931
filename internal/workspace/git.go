package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrGitMissing is returned when the git program cannot be found.
var ErrGitMissing = errors.New("workspace: git is not installed or not on PATH; install git (agent mode works in a git worktree)")

// noHooks is core.hooksPath for every git command of this package: a path
// below /dev/null, where no file can ever be created, so git finds no
// hook to run whoever can write the temporary folder (an executor could
// plant one in a folder made there).
const noHooks = "/dev/null"

// hardening are the -c settings of every git command of this package:
// whatever a configuration file says, git runs no command it names (a
// hook, the file-system monitor, a credential helper, an ssh command, an
// external diff, an automatic gc, a pager), signs nothing and waits for
// no one. Filter drivers, whose names are the repository's, are turned
// off by name (filterOverrides).
var hardening = []string{
	"-c", "core.hooksPath=" + noHooks,
	"-c", "core.fsmonitor=false",
	"-c", "core.sshCommand=",
	"-c", "core.askPass=",
	"-c", "core.pager=cat",
	"-c", "core.editor=:",
	"-c", "credential.helper=",
	"-c", "diff.external=",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "protocol.allow=never",
	"-c", "core.quotePath=false",
}

// hardenedEnv is the environment of every git command: no system or
// global configuration (files an executor without a sandbox could have
// written; the user's identity is read once, in Open), no system
// attributes, no terminal prompt, no optional lock, git's English
// messages.
var hardenedEnv = []string{
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_CONFIG_GLOBAL=" + os.DevNull,
	"GIT_ATTR_NOSYSTEM=1",
	"GIT_TERMINAL_PROMPT=0", // never wait for a credential on a terminal
	"GIT_OPTIONAL_LOCKS=0",  // a status read takes no lock the user's git could trip on
	"LC_ALL=C",              // messages this package reads are git's English ones
}

// gitDirs pins the git folders of a worktree's commands: the repository's
// own git folder, the worktree's index file and its files, given to git in
// its environment. git then reads neither the worktree's .git file nor
// the commondir of the worktree's git folder, either of which an executor
// could rewrite to lead git to a folder of its own, whose configuration
// would run a command. (GIT_COMMON_DIR would not do: git 2.39's refs
// follow the commondir file whatever it says.)
type gitDirs struct {
	gitDir, index, workTree string
}

// env is the environment of a git command with these folders pinned, or
// the inherited one (for the user's repository, found from the folder)
// when d is nil. Pinned, no GIT_* variable of this process reaches git.
func (d *gitDirs) env() []string {
	if d == nil {
		return append(os.Environ(), hardenedEnv...)
	}
	return append(withoutGitVariables(os.Environ()), append([]string{
		"GIT_DIR=" + d.gitDir,
		"GIT_INDEX_FILE=" + d.index,
		"GIT_WORK_TREE=" + d.workTree,
	}, hardenedEnv...)...)
}

// check refuses to run git when the repository's git folder has gained a
// commondir file, which would send git's refs elsewhere: a repository's
// own git folder has none.
func (d *gitDirs) check() error {
	if d == nil {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(d.gitDir, "commondir")); err == nil {
		return fmt.Errorf("workspace: %s has gained a commondir file, which would lead git elsewhere; remove it (a repository's own git folder has none)", d.gitDir)
	}
	return nil
}

// git runs git in dir and returns its standard output. Its failure names
// the command and carries git's own message.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitBytes(ctx, dir, args...)
	return string(out), err
}

// gitBytes runs git in dir, found from dir (the user's repository).
func gitBytes(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return runGit(ctx, dir, nil, args...)
}

// runGit runs git in dir with the folders of pin (nil: found from dir),
// hardened: hardening, every filter driver the configuration defines
// turned off, hardenedEnv.
func runGit(ctx context.Context, dir string, pin *gitDirs, args ...string) ([]byte, error) {
	path, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrGitMissing
	}
	if err := pin.check(); err != nil {
		return nil, err
	}
	filters, err := filterOverrides(ctx, path, dir, pin)
	if err != nil {
		return nil, err
	}
	full := append(append([]string{}, hardening...), filters...)
	if pin != nil {
		full = append(full, "-c", "core.bare=false") // a worktree's commands have one, whatever the configuration says
	}
	full = append(full, args...)
	return execGit(ctx, path, dir, pin.env(), args, full)
}

// filterOverrides lists the filter drivers the repository's configuration
// defines and returns -c settings that empty each one's commands: a
// driver runs on files whose attributes name it, and both the attributes
// (.gitattributes in the worktree) and the configuration may have been
// written by an executor. Reading the configuration runs nothing.
func filterOverrides(ctx context.Context, path, dir string, pin *gitDirs) ([]string, error) {
	full := append(append([]string{}, hardening...), "config", "--null", "--name-only", "--get-regexp", `^filter\.`)
	out, err := execGit(ctx, path, dir, pin.env(), []string{"config", "--get-regexp", "filter"}, full)
	var ge *GitError
	if errors.As(err, &ge) && ge.exitCode() == 1 {
		return nil, nil // no filter is configured
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var overrides []string
	for _, key := range strings.Split(string(out), "\x00") {
		// filter.<driver>.<setting>: the driver's name may hold dots.
		i, j := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
		if i < 0 || j <= i {
			continue
		}
		driver := key[i+1 : j]
		if seen[driver] {
			continue
		}
		seen[driver] = true
		for _, s := range []string{"clean", "smudge", "process"} {
			overrides = append(overrides, "-c", "filter."+driver+"."+s+"=")
		}
		overrides = append(overrides, "-c", "filter."+driver+".required=false")
	}
	return overrides, nil
}

// execGit runs git (at path) with the full arguments in dir; args are
// what an error names.
func execGit(ctx context.Context, path, dir string, env, args, full []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, full...)
	cmd.Dir = dir
	cmd.Env = env
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

// exitCode is git's exit status, -1 when it did not exit.
func (e *GitError) exitCode() int {
	var ee *exec.ExitError
	if errors.As(e.Err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
