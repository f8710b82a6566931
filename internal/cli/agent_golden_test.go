package cli

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// fixedLengthDir makes a folder whose path has the same length every
// run, so that what the simulated models read and write (paths included)
// has the same size, and token estimates and tables the same widths.
func fixedLengthDir(t *testing.T) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	dir := filepath.Join(os.TempDir(), "qag-"+hex.EncodeToString(b))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

var (
	branchTimeRE = regexp.MustCompile(`agent-\d{8}-\d{6}-`)
	commitRE     = regexp.MustCompile(`\b[0-9a-f]{40}\b|\b[0-9a-f]{12}\b`)
	toolCallRE   = regexp.MustCompile(`call_[0-9a-f]{8}`)
)

// A whole agent run on the simulator, in every format, is a golden file:
// the context read, proposals, votes, plan review, the plan, every step's
// tool calls, every decision, the review and what to do next. Paths,
// the branch's time, commit ids and tool-call ids are replaced by
// placeholders.
func TestAgentReportGolden(t *testing.T) {
	for _, c := range []struct{ name, golden string }{
		{"one executor", "agent"},
		// Two attempts: the attempts side by side, the ranking and each
		// model's judgement, the winner's run, the next steps for each.
		{"two attempts", "agent-attempts"},
	} {
		for _, format := range formats {
			t.Run(c.golden+"/"+format, func(t *testing.T) {
				gittest.Isolate(t)
				// Fixed dates make fixed commit ids, so the history the models
				// read (git log) is the same every run, and so are their votes.
				t.Setenv("GIT_AUTHOR_DATE", "2026-11-25T09:00:00Z")
				t.Setenv("GIT_COMMITTER_DATE", "2026-11-25T09:00:00Z")
				base := fixedLengthDir(t)
				repo := filepath.Join(base, "repo")
				os.Mkdir(repo, 0o755)
				gittest.Git(t, repo, "init", "-q", "-b", "main")
				gittest.Write(t, repo, map[string]string{"README.md": "# demo\n", "go.mod": "module demo\n"})
				gittest.Git(t, repo, "add", "--all")
				gittest.Git(t, repo, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "initial")
				h := newHarness(t)
				h.dir = repo
				h.env["XDG_STATE_HOME"] = filepath.Join(base, "state")
				args := []string{"agent", "--sim", "--yes", "-q", "-o", format, "Add a --verbose flag"}
				if c.golden == "agent-attempts" {
					args = append(args, "--attempts", "2")
				}
				o := h.run(args...)
				if o.code != cmdutil.ExitOK {
					t.Fatalf("exit %d: %s", o.code, o.stderr)
				}
				out := goldenOutput(t, format, o.stdout)
				out = strings.ReplaceAll(out, base, "$TMP")
				out = branchTimeRE.ReplaceAllString(out, "agent-TIME-")
				out = commitRE.ReplaceAllString(out, "COMMIT")
				out = toolCallRE.ReplaceAllString(out, "call_ID") // the simulator's tool-call ids are random
				golden(t, c.golden+"."+format+".golden", out)
			})
		}
	}
}
