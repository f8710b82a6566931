package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// readChange reads what quorum review reviews: the diff from its file,
// stdin or git diff base..head, and the context files. It says where the
// diff came from ("git diff main..HEAD"), for messages. Every input is
// read up to quorum.MaxChangeBytes and refused beyond, never cut: a
// review of part of a change would pass what it never saw.
func (inv *invocation) readChange() (quorum.Change, string, error) {
	o := inv.o
	var ch quorum.Change
	var source string
	var err error
	switch {
	case o.pr != "" && (len(inv.args) == 1 || o.base != ""):
		return ch, "", usagef("give the change as a diff file, as --base or as --pr, one of them")
	case o.pr != "":
		ch, source, err = inv.readPR(o.pr) // its title and body are context
	case len(inv.args) == 1 && o.base != "":
		return ch, "", usagef("give the change as a diff file or as --base, not both")
	case o.head != "" && o.base == "":
		return ch, "", usagef("--head needs --base: the review is of git diff --base..--head")
	case len(inv.args) == 1 && inv.args[0] == "-":
		source = "the diff on stdin"
		ch.Diff, err = readLimited(inv.e.stdin, source)
	case len(inv.args) == 1:
		source = inv.args[0]
		ch.Diff, err = readFile(source, "the diff file")
	case o.base != "":
		ch.Diff, source, err = inv.gitDiff(o.base, o.head)
	default:
		return ch, "", usagef("quorum review needs a change: a diff file, - to read it from stdin, --base REV to review git diff REV..HEAD, or --pr N for a pull request")
	}
	if err != nil {
		return ch, source, err
	}
	for _, p := range o.context {
		text, err := readFile(p, "the context file")
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

// readFile reads a file named on the command line; one that cannot be
// read is a mistake on the command line.
func readFile(path, what string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", usagef("cannot read %s %s: %v", what, path, errors.Unwrap(err))
	}
	defer f.Close()
	text, err := readLimited(f, what+" "+path)
	if err != nil && !errors.As(err, new(*UsageError)) {
		return "", usagef("cannot read %s %s: %v", what, path, err)
	}
	return text, err
}

func tooLarge(what string) error {
	return usagef("%s is more than %d bytes (1 MiB), the most a review takes; review a smaller range or fewer files", what, quorum.MaxChangeBytes)
}

// gitDiff runs git diff base..head in the command's directory. A range
// git cannot make (not a repository, an unknown revision) is a mistake on
// the command line, told in git's words.
func (inv *invocation) gitDiff(base, head string) (diff, source string, err error) {
	if head == "" {
		head = "HEAD"
	}
	for _, rev := range []string{base, head} {
		if strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\n") {
			return "", "", usagef("--base and --head take git revisions; %q is not one", rev)
		}
	}
	rng := base + ".." + head
	source = "git diff " + rng
	// Plain output whatever the user's configuration: no colour, no
	// external diff tool or text conversion, paths as they are.
	cmd := exec.CommandContext(inv.cmd.Context(), "git", "-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", "--no-textconv", rng, "--")
	cmd.Dir = inv.e.dir
	out, errOut := &capped{max: quorum.MaxChangeBytes}, &capped{max: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "", source, fmt.Errorf("git was not found on PATH, so %s cannot run; give the diff as a file or on stdin instead", source)
	case errors.As(err, &ee):
		msg := strings.TrimSpace(errOut.buf.String())
		msg, _, _ = strings.Cut(msg, "\n")
		return "", source, usagef("%s failed (%s): %s", source, ee.ProcessState, msg)
	case err != nil:
		return "", source, fmt.Errorf("running %s: %w", source, err)
	case out.over:
		return "", source, tooLarge(source)
	}
	return out.buf.String(), source, nil
}

// capped keeps the first max bytes written to it and counts the rest
// away, so that a child writing more never blocks on a pipe nobody reads.
type capped struct {
	max  int
	buf  bytes.Buffer
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}
