package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/gittest"
	"github.com/rhysd/actionlint"
)

const exampleWorkflow = "../../examples/github-actions/quorum-review.yml"

// The GitHub Actions example is a valid workflow (actionlint finds
// nothing in it), gates on quorum review's exit status, uploads the SARIF
// file also when the gate closed, and the command line it runs is one
// quorum takes.
func TestExampleWorkflow(t *testing.T) {
	b, err := os.ReadFile(exampleWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{}) // no shellcheck or pyflakes: nothing outside the test
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(exampleWorkflow, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("actionlint: %s", e)
	}
	w := string(b)
	for _, want := range []string{"security-events: write", "github/codeql-action/upload-sarif@", "sarif_file: quorum.sarif", "if: ${{ always() &&"} {
		if !strings.Contains(w, want) {
			t.Errorf("the workflow lacks %q", want)
		}
	}
	if strings.Contains(w, "continue-on-error") || strings.Contains(w, "|| true") {
		t.Error("the workflow ignores the review's exit status, which is the gate")
	}
	// Its quorum command line is one quorum takes: run it on the
	// simulator, in a repository with a commit to review.
	m := regexp.MustCompile(`(?m)^\s*run: quorum (review .*)$`).FindStringSubmatch(w)
	if m == nil {
		t.Fatal("no quorum review step")
	}
	repo := gittest.NewRepo(t, map[string]string{"notes.go": "package notes\n"})
	gittest.Write(t, repo, map[string]string{"notes.go": "package notes\n\n// TODO: say more\nvar x = 1\n"})
	gittest.Git(t, repo, "commit", "-q", "-am", "notes")
	sarif := filepath.Join(t.TempDir(), "quorum.sarif")
	args := strings.Fields(strings.NewReplacer(`"$BASE_SHA"`, "HEAD~1", "quorum.sarif", sarif).Replace(m[1]))
	h := newHarness(t)
	h.dir = repo
	o := h.run(append(args, "--sim")...)
	if o.code != cmdutil.ExitOK && o.code != cmdutil.ExitFailure {
		t.Errorf("quorum %s: exit %d, %s", m[1], o.code, o.stderr)
	}
	if _, err := os.Stat(sarif); err != nil {
		t.Errorf("no SARIF file: %v", err)
	}
}
