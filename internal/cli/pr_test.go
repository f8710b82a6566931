package cli

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
)

// fakeGH puts a gh first on PATH that runs script (bash) with gh's
// arguments, and returns where it logs them.
func fakeGH(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	body := "#!/bin/bash\necho \"$*\" >> " + log + "\n" + script + "\n"
	if err := os.WriteFile(filepath.Join(dir, "gh"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// quorum review --pr N (or a PR's URL) reviews the pull request's diff
// through gh, with its title and description as context the models read.
func TestReviewPullRequest(t *testing.T) {
	diff := writeFile(t, "pr.diff", minorDiff)
	log := fakeGH(t, `case "$1 $2" in
"pr diff") cat `+diff+`;;
"pr view") echo '{"number": 42, "title": "Add notes", "body": "Why: we need notes.", "url": "https://github.com/o/r/pull/42"}';;
*) exit 1;;
esac`)
	h := newHarness(t)
	var mu sync.Mutex
	var inspected []string
	h.simModels = func(p pace) []sim.Model {
		ms := simModels(p)
		for i := range ms {
			ms[i] = ms[i].With(sim.Rule{Name: "watch", Match: func(t sim.Turn) bool {
				if strings.HasPrefix(t.Prompt, quorum.PromptMarker(quorum.PhaseInspect)) {
					mu.Lock()
					inspected = append(inspected, t.Prompt)
					mu.Unlock()
				}
				return false // only watching: the model's own rules answer
			}, Respond: sim.Always(sim.Text(""))})
		}
		return ms
	}
	for _, pr := range []string{"42", "https://github.com/o/r/pull/42"} {
		inspected = nil
		o := h.run("review", "--sim", "-q", "--fail-on", "none", "--pr", pr)
		if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "notes.go") {
			t.Fatalf("--pr %s: exit %d, stdout:\n%s\nstderr:\n%s", pr, o.code, o.stdout, o.stderr)
		}
		if len(inspected) != 3 || !strings.Contains(inspected[0], "Why: we need notes.") || !strings.Contains(inspected[0], "pull request #42") {
			t.Errorf("--pr %s: the models did not get the pull request's description:\n%.3000s", pr, strings.Join(inspected, "\n---\n"))
		}
	}
	calls, _ := os.ReadFile(log)
	if !strings.Contains(string(calls), "pr diff 42\n") || !strings.Contains(string(calls), "pr view https://github.com/o/r/pull/42 --json number,title,body,url\n") {
		t.Errorf("gh was called with:\n%s", calls)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"review", "--sim", "--pr", "42", diff}, "give the change as a diff file, as --base or as --pr, one of them"},
		{[]string{"review", "--sim", "--pr", "forty-two"}, "--pr takes a pull request's number or URL"},
	} {
		if o := h.run(c.args...); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%q: exit %d, %q", c.args, o.code, o.stderr)
		}
	}
}

// Without gh, or with gh not logged in, --pr says what to do.
func TestReviewPullRequestWithoutGH(t *testing.T) {
	h := newHarness(t)
	fakeGH(t, `echo 'To get started with GitHub CLI, please run:  gh auth login' >&2; exit 4`)
	o := h.run("review", "--sim", "--pr", "7")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "the GitHub CLI is not logged in; run gh auth login, or set GH_TOKEN") {
		t.Errorf("not logged in: exit %d, %q", o.code, o.stderr)
	}
	fakeGH(t, `echo 'GraphQL: Could not resolve to a PullRequest with the number of 7. (repository.pullRequest)' >&2; exit 1`)
	if o := h.run("review", "--sim", "--pr", "7"); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "gh pr diff 7 failed: GraphQL: Could not resolve to a PullRequest") {
		t.Errorf("no such pull request: exit %d, %q", o.code, o.stderr)
	}
	t.Setenv("PATH", t.TempDir())
	if o := h.run("review", "--sim", "--pr", "7"); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "the GitHub CLI, gh, which is not on PATH; install it (https://cli.github.com)") {
		t.Errorf("no gh: exit %d, %q", o.code, o.stderr)
	}
}
