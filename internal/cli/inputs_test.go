package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/input"
	"github.com/quorum-go/quorum/internal/cli/runquorum"
	"github.com/quorum-go/quorum/quorum"
)

// A topic on stdin up to input.MaxTopic is taken whole; one byte more is
// refused with the limit, never cut; the report does not echo a long
// topic back in full.
func TestStdinTopicLimit(t *testing.T) {
	h := newHarness(t)
	h.stdin = strings.Repeat("x", input.MaxTopic+1)
	if o := h.run("discuss", "--sim", "-q", "-"); o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, "the topic on stdin is longer than 1048576 bytes (1 MiB)") {
		t.Errorf("over the limit: exit %d, %q", o.code, o.stderr)
	}
	topic := "Should we rewrite it? " + strings.Repeat("Some more context. ", 5000) // about 95 KB
	h.stdin = topic
	o := h.run("discuss", "--sim", "-q", "-")
	if o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if strings.Count(flat(o.stdout), "Some more context.") > 30 || !strings.Contains(flat(o.stdout), "more characters, left out here; -o json has the whole text)") {
		t.Errorf("the report echoes the long topic:\n%.2000s", o.stdout)
	}
	o = h.run("discuss", "--sim", "-q", "--json", "question", "-")
	if !strings.Contains(o.stdout, strings.TrimSpace(topic[len(topic)-200:])) {
		t.Errorf("the JSON lost the end of the topic")
	}
}

// A transcript file that cannot be created is not a mistake on the
// command line: exit 1.
func TestTranscriptPathIsNotAUsageError(t *testing.T) {
	o := newHarness(t).run("discuss", "--sim", "-q", "--transcript", filepath.Join(t.TempDir(), "no", "such", "dir", "t.jsonl"), "q")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "cannot create the transcript file") {
		t.Errorf("exit %d, %q", o.code, o.stderr)
	}
}

// Start-up failures speak the command's language (--cli-path, not a
// library field) and all say how to try quorum without the CLI.
func TestStartupErrorsNameFlagsAndSim(t *testing.T) {
	h := newHarness(t)
	t.Setenv("PATH", t.TempDir())
	o := h.run("ask", "q")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "the GitHub Copilot CLI was not found on PATH; install it with npm install -g @github/copilot, or name its binary with --cli-path") ||
		!strings.Contains(o.stderr, "add --sim") || strings.Contains(o.stderr, "Options.") {
		t.Errorf("no CLI: exit %d, %q", o.code, o.stderr)
	}
	o = h.run("models", "--cli-path", "/nonexistent/copilot")
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "the Copilot CLI named by --cli-path (/nonexistent/copilot) cannot be run") || !strings.Contains(o.stderr, "add --sim") {
		t.Errorf("bad --cli-path: exit %d, %q", o.code, o.stderr)
	}
	h.env["COPILOT_CLI_PATH"] = "/nonexistent/copilot"
	if o := h.run("models"); !strings.Contains(o.stderr, "named by $COPILOT_CLI_PATH (/nonexistent/copilot)") {
		t.Errorf("bad $COPILOT_CLI_PATH: %q", o.stderr)
	}
	// A CLI that exits at once: a start-up failure, with the hint.
	fake := filepath.Join(t.TempDir(), "copilot")
	os.WriteFile(fake, []byte("#!/bin/sh\necho broken >&2\nexit 3\n"), 0o755)
	if o := h.run("models", "--cli-path", fake); o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "starting the Copilot CLI: ") || !strings.Contains(o.stderr, "add --sim") {
		t.Errorf("CLI that exits: exit %d, %q", o.code, o.stderr)
	}
}

// version prints the module version, the VCS revision (or that there is
// none) and the CLI it would use with its version.
func TestVersion(t *testing.T) {
	h := newHarness(t)
	t.Setenv("PATH", t.TempDir())
	o := h.run("version")
	if o.code != cmdutil.ExitOK || !strings.HasPrefix(o.stdout, "quorum devel, ") || !strings.Contains(o.stdout, "Copilot CLI: none found (the GitHub Copilot CLI was not found on PATH") {
		t.Errorf("exit %d:\n%s%s", o.code, o.stdout, o.stderr)
	}
	fake := filepath.Join(t.TempDir(), "copilot")
	os.WriteFile(fake, []byte("#!/bin/sh\necho 'GitHub Copilot CLI 9.8.7.'\necho 'Run copilot update to check for updates.'\n"), 0o755)
	o = h.run("version", "--cli-path", fake, "--json", "cli")
	if !strings.Contains(o.stdout, `"version": "9.8.7"`) || !strings.Contains(o.stdout, `"from": "flag --cli-path"`) || !strings.Contains(o.stdout, `"path": "`+fake+`"`) {
		t.Errorf("version --json cli:\n%s%s", o.stdout, o.stderr)
	}
}

// A --sarif path that cannot be written is found before any model is
// asked, as --transcript's is, and a path that can is left as it was.
func TestSARIFPathCheckedBeforeTheRun(t *testing.T) {
	h := newHarness(t)
	asked := 0
	h.onEvent = func(quorum.Progress) { asked++ }
	diff := writeFile(t, "c.diff", minorDiff)
	o := h.run("review", "--sim", "-q", "--sarif", filepath.Join(t.TempDir(), "no", "such", "dir", "r.sarif"), diff)
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "cannot write the SARIF file:") || !strings.Contains(o.stderr, "choose another --sarif path") || asked != 0 || o.stdout != "" {
		t.Errorf("exit %d, %d events, stdout %q, stderr %q", o.code, asked, o.stdout, o.stderr)
	}
	ok := filepath.Join(t.TempDir(), "r.sarif")
	if err := runquorum.CheckWritable(ok); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ok); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the check left a file behind: %v", err)
	}
}
