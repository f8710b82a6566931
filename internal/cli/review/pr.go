package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/limitio"
	"github.com/quorum-go/quorum/quorum"
)

// This file is quorum review --pr: a pull request's diff, title and body
// through the GitHub CLI (gh), as the tools this project learns from take
// them. The diff is reviewed; the title and body are context, read but
// not reviewed.

// prRE is what --pr takes: a number, or a pull request's URL.
var prRE = regexp.MustCompile(`^(\d+|https://[^\s/]+/[^\s/]+/[^\s/]+/pull/\d+/?)$`)

// readPR reads pull request pr through gh: its diff, and its title and
// body as a context file.
func readPR(inv *cmdutil.Invocation, pr string) (quorum.Change, string, error) {
	var ch quorum.Change
	if !prRE.MatchString(pr) {
		return ch, "", cmdutil.Usagef("--pr takes a pull request's number or URL (https://github.com/OWNER/REPO/pull/N), not %q", pr)
	}
	source := "gh pr diff " + pr
	diff, err := gh(inv, source, quorum.MaxChangeBytes, "pr", "diff", pr)
	if err != nil {
		return ch, source, err
	}
	meta, err := gh(inv, "gh pr view "+pr, 1<<20, "pr", "view", pr, "--json", "number,title,body,url")
	if err != nil {
		return ch, source, err
	}
	var v struct {
		Number int
		Title  string
		Body   string
		URL    string
	}
	if err := json.Unmarshal([]byte(meta), &v); err != nil {
		return ch, source, fmt.Errorf("gh pr view %s printed what quorum cannot read (%v); is gh up to date (gh --version)?", pr, err)
	}
	ch.Diff = diff
	text := v.Title
	if strings.TrimSpace(v.Body) != "" {
		text += "\n\n" + v.Body
	}
	ch.Context = append(ch.Context, quorum.ContextFile{Path: fmt.Sprintf("pull request #%d (%s): its title and description", v.Number, v.URL), Text: text})
	return ch, fmt.Sprintf("pull request #%d (gh pr diff)", v.Number), nil
}

// gh runs the GitHub CLI with args in the command's directory and returns
// what it printed, at most max bytes (more is refused, never cut). Its
// failures say what to do: install it, log in, or what gh said.
func gh(inv *cmdutil.Invocation, what string, max int, args ...string) (string, error) {
	cmd := exec.CommandContext(inv.Cmd.Context(), "gh", args...)
	cmd.Dir = inv.Dir
	cmd.Env = append(cmd.Environ(), "GH_PROMPT_DISABLED=1", "NO_COLOR=1", "GH_PAGER=cat")
	out, errOut := &limitio.Buffer{Max: max}, &limitio.Buffer{Max: 4096}
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	var ee *exec.ExitError
	said := strings.TrimSpace(errOut.String())
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "", fmt.Errorf("quorum review --pr reads the pull request with the GitHub CLI, gh, which is not on PATH; install it (https://cli.github.com) and run gh auth login, or give the diff as a file (gh pr diff N > pr.diff)")
	case errors.As(err, &ee) && (ee.ExitCode() == 4 || strings.Contains(said, "gh auth login")):
		return "", fmt.Errorf("%s: the GitHub CLI is not logged in; run gh auth login, or set GH_TOKEN to a token that can read the repository", what)
	case errors.As(err, &ee):
		first, _, _ := strings.Cut(said, "\n")
		if first == "" {
			first = ee.ProcessState.String()
		}
		return "", cmdutil.Usagef("%s failed: %s", what, first)
	case err != nil:
		return "", fmt.Errorf("running %s: %w", what, err)
	case out.Over():
		return "", tooLarge(what)
	}
	return out.String(), nil
}
