package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/quorum"
)

// `quorum chat` through the real Copilot CLI, offline, line by line (its
// stdin is not a terminal): the follow-up reaches each model's session
// from the first question (the model API sees the first exchange in that
// session's second request), and `quorum chat --resume` of the saved
// conversation — its sessions deleted when the first run ended — goes on
// in new sessions whose prompt carries both saved rounds. Fails, not
// skips, without the CLI.
func TestRealCLIChat(t *testing.T) {
	p := newRealPanel(t)
	cliBin, bin, sb, api := p.cli, p.bin, p.sb, p.api
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	state := t.TempDir()
	chat := func(stdin string, args ...string) procResult {
		cmd := sb.Command(ctx, bin, append([]string{"chat", "-m", "alpha,beta,gamma", "--moderator", "beta", "--cli-path", cliBin}, args...)...)
		cmd.Env = append(p.env(t), "XDG_STATE_HOME="+state)
		cmd.Dir = t.TempDir()
		cmd.Stdin = strings.NewReader(stdin)
		return runBinary(t, cmd)
	}
	answers := func(model string) []modelapi.Request {
		var out []modelapi.Request
		for _, r := range api.Requests() {
			if r.Model == model && phaseOf(r.UserText) == quorum.PhaseAnswer {
				out = append(out, r)
			}
		}
		return out
	}

	r := chat("Should we adopt Go?\nAnd what about testing?\n")
	if r.code != cmdutil.ExitOK || !strings.Contains(r.stdout, "Round 2 · discuss: And what about testing?") {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, m := range []string{"alpha", "beta", "gamma"} {
		reqs := answers(m)
		if len(reqs) != 2 || reqs[0].Conversation == "" || reqs[1].Conversation != reqs[0].Conversation {
			t.Fatalf("%s: %d answer requests, sessions %v", m, len(reqs), conversations(reqs))
		}
		var first bool
		for _, msg := range reqs[1].Messages[:len(reqs[1].Messages)-1] {
			first = first || msg.Role == "assistant" && strings.Contains(msg.Content, m+" answers")
		}
		if !first || !strings.Contains(reqs[1].UserText, "Should we adopt Go?") || !strings.Contains(reqs[1].UserText, "synthesis by beta") {
			t.Errorf("%s: the follow-up's request lacks the first exchange or the synthesis: %s", m, reqs[1].UserText)
		}
	}
	id := regexp.MustCompile(`conversation (\S+) saved`).FindStringSubmatch(r.stderr)
	if id == nil {
		t.Fatalf("no conversation id on stderr:\n%s", r.stderr)
	}

	r = chat("Which framework?\n", "--resume", id[1])
	if r.code != cmdutil.ExitOK || !strings.Contains(r.stdout, "2 earlier round(s)") || !strings.Contains(r.stdout, "Round 3 · discuss: Which framework?") {
		t.Fatalf("--resume: exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, m := range []string{"alpha", "beta", "gamma"} {
		reqs := answers(m)
		last := reqs[len(reqs)-1]
		if last.Conversation == reqs[0].Conversation {
			t.Errorf("%s: round 3 went to the deleted session %s", m, last.Conversation)
		}
		for _, want := range []string{"Which framework?", "Should we adopt Go?", "And what about testing?", "synthesis by beta"} {
			if !strings.Contains(last.UserText, want) {
				t.Errorf("%s: the resumed round's prompt lacks %q:\n%s", m, want, last.UserText)
			}
		}
	}
}

func conversations(reqs []modelapi.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Conversation)
	}
	return out
}
