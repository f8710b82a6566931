package review

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/cmdutil/cmdutiltest"
	"github.com/quorum-go/quorum/quorum"
)

func factory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer) {
	f, s := cmdutiltest.Factory(t, nil)
	return f, s.Out
}

// The command's flags reach its options: the git range, the context
// files, the gate and the SARIF path; nothing runs git or connects when a
// run function stands in.
func TestNewCmdReviewParsesItsFlags(t *testing.T) {
	f, out := factory(t)
	var got *ReviewOptions
	cmd := NewCmdReview(f, func(o *ReviewOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--base", "main", "--head", "topic", "--pr", "42", "--context", "a.md", "--context", "b.md", "--fail-on", "major", "--sarif", "r.sarif", "-q"})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the run function was not called")
	}
	o := got.Opts
	if got.Base != "main" || got.Head != "topic" || got.PR != "42" || strings.Join(o.Context, ",") != "a.md,b.md" || got.Settings.FailOn != "major" || o.SARIF != "r.sarif" || !o.Quiet || len(got.Args) != 0 {
		t.Errorf("options %+v, fail-on %q, args %q", *o, got.Settings.FailOn, got.Args)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out)
	}
}

// Two diff files are a usage error, told before the run function.
func TestNewCmdReviewTakesOneDiff(t *testing.T) {
	f, _ := factory(t)
	cmd := NewCmdReview(f, func(*ReviewOptions) error { t.Error("the run function was called"); return nil })
	cmd.SetArgs([]string{"a.diff", "b.diff"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	if err := cmd.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "takes at most") {
		t.Errorf("err %v", err)
	}
}

// Run with an observer, on the simulator, over a diff file: the observer
// sees the run's events and the JSON envelope carries the review.
func TestRunOnTheSimulator(t *testing.T) {
	f, out := factory(t)
	diff := filepath.Join(t.TempDir(), "c.diff")
	if err := os.WriteFile(diff, []byte("diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var events atomic.Int64
	cmd := NewCmdReview(f, func(o *ReviewOptions) error {
		return Run(o, func(quorum.Progress) { events.Add(1) })
	})
	cmdutiltest.RunJSON(t, cmd, out, "review", "--sim", "-q", "-o", "json", "--fail-on", "none", diff)
	if events.Load() == 0 {
		t.Error("the observer saw no event")
	}
}
