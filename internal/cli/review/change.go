package review

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/workspace"
	"github.com/quorum-go/quorum/quorum"
)

// readChange reads what quorum review reviews: the diff from its file,
// stdin or git diff base..head, and the context files. It says where the
// diff came from ("git diff main..HEAD"), for messages. Every input is
// read up to quorum.MaxChangeBytes and refused beyond, never cut: a
// review of part of a change would pass what it never saw.
func readChange(o *ReviewOptions) (quorum.Change, string, error) {
	inv := o.Invocation
	var ch quorum.Change
	var source string
	var err error
	switch {
	case o.PR != "" && (len(inv.Args) == 1 || o.Base != ""):
		return ch, "", cmdutil.Usagef("give the change as a diff file, as --base or as --pr, one of them")
	case o.PR != "":
		ch, source, err = readPR(inv, o.PR) // its title and body are context
	case len(inv.Args) == 1 && o.Base != "":
		return ch, "", cmdutil.Usagef("give the change as a diff file or as --base, not both")
	case o.Head != "" && o.Base == "":
		return ch, "", cmdutil.Usagef("--head needs --base: the review is of git diff --base..--head")
	case len(inv.Args) == 1 && inv.Args[0] == "-":
		source = "the diff on stdin"
		ch.Diff, err = readLimited(inv.In, source)
	case len(inv.Args) == 1:
		source = inv.Args[0]
		ch.Diff, err = ReadFile(source, "the diff file")
	case o.Base != "":
		ch.Diff, source, err = GitDiff(inv, o.Base, o.Head)
	default:
		return ch, "", cmdutil.Usagef("quorum review needs a change: a diff file, - to read it from stdin, --base REV to review git diff REV..HEAD, or --pr N for a pull request")
	}
	if err != nil {
		return ch, source, err
	}
	for _, p := range inv.Opts.Context {
		text, err := ReadFile(p, "the context file")
		if err != nil {
			return ch, source, err
		}
		ch.Context = append(ch.Context, quorum.ContextFile{Path: p, Text: text})
	}
	return ch, source, nil
}

// readLimited reads r whole, refusing more than quorum.MaxChangeBytes.
func readLimited(r io.Reader, what string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, quorum.MaxChangeBytes+1))
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	if len(b) > quorum.MaxChangeBytes {
		return "", tooLarge(what)
	}
	return string(b), nil
}

// ReadFile reads a file named on the command line; one that cannot be
// read is a mistake on the command line.
func ReadFile(path, what string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", cmdutil.Usagef("cannot read %s %s: %v", what, path, errors.Unwrap(err))
	}
	defer f.Close()
	text, err := readLimited(f, what+" "+path)
	if err != nil && !errors.As(err, new(*cmdutil.UsageError)) {
		return "", cmdutil.Usagef("cannot read %s %s: %v", what, path, err)
	}
	return text, err
}

func tooLarge(what string) error {
	return cmdutil.Usagef("%s is more than %d bytes (1 MiB), the most a review takes; review a smaller range or fewer files", what, quorum.MaxChangeBytes)
}

// GitDiff runs git diff base..head in the command's directory. A range
// git cannot make (not a repository, an unknown revision) is a mistake on
// the command line, told in git's words.
func GitDiff(inv *cmdutil.Invocation, base, head string) (diff, source string, err error) {
	if head == "" {
		head = "HEAD"
	}
	for _, rev := range []string{base, head} {
		if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\n") {
			return "", "", cmdutil.Usagef("--base and --head take git revisions; %q is not one", rev)
		}
	}
	rng := base + ".." + head
	source = "git diff " + rng
	diff, err = workspace.DiffRange(inv.Cmd.Context(), inv.Dir, rng, quorum.MaxChangeBytes, false)
	var ge *workspace.GitError
	switch {
	case errors.Is(err, workspace.ErrGitMissing):
		return "", source, fmt.Errorf("git was not found on PATH, so %s cannot run; give the diff as a file or on stdin instead", source)
	case errors.Is(err, workspace.ErrDiffTooLarge):
		return "", source, tooLarge(source)
	case errors.As(err, &ge):
		return "", source, gitDiffFailed(inv, source, rng, ge)
	case err != nil:
		return "", source, fmt.Errorf("running %s: %w", source, err)
	}
	return diff, source, nil
}

// gitDiffFailed says, in quorum's words and with what to do, why git diff
// of a --base range failed: not in a repository, a revision git does not
// know, or else git's own first line.
func gitDiffFailed(inv *cmdutil.Invocation, source, rng string, ge *workspace.GitError) error {
	lower := strings.ToLower(ge.Message)
	switch {
	case strings.Contains(lower, "not a git repository"):
		folder := inv.Dir
		if abs, err := filepath.Abs(folder); err == nil {
			folder = abs
		}
		return cmdutil.Usagef("--base reviews a git range, but %s is not in a git repository; run quorum review inside one, or give the change as a diff file or on stdin (git diff > change.diff)", folder)
	case strings.Contains(lower, "bad revision"), strings.Contains(lower, "unknown revision"), strings.Contains(lower, "ambiguous argument"):
		return cmdutil.Usagef("%s: git knows no such revision in %s here; give --base (and --head) a branch, tag or commit of this repository (git branch -a, git log --oneline)", source, rng)
	}
	msg, _, _ := strings.Cut(ge.Message, "\n")
	return cmdutil.Usagef("%s failed (%s): %s", source, ge.Err, msg)
}
