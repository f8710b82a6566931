package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/gittest"
)

// Two attempts on the simulator, in every format, are golden files: the
// attempts side by side, the ranking and each model's judgement, the
// winner's run, and the next steps for each attempt. The set-up is
// TestAgentReportGolden's: fixed dates, paths of a fixed length, the
// branch's time, commit ids and tool-call ids replaced by placeholders.
func TestAgentAttemptsReportGolden(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			gittest.Isolate(t)
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
			o := h.run("agent", "--sim", "--yes", "-q", "--attempts", "2", "-o", format, "Add a --verbose flag")
			if o.code != cmdutil.ExitOK {
				t.Fatalf("exit %d: %s", o.code, o.stderr)
			}
			out := goldenOutput(t, format, o.stdout)
			out = strings.ReplaceAll(out, base, "$TMP")
			out = branchTimeRE.ReplaceAllString(out, "agent-TIME-")
			out = commitRE.ReplaceAllString(out, "COMMIT")
			out = toolCallRE.ReplaceAllString(out, "call_ID")
			golden(t, "agent-attempts."+format+".golden", out)
		})
	}
}
