package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/testing/clitest"
	"github.com/quorum-go/quorum/internal/testing/modelapi"
	"github.com/quorum-go/quorum/quorum"
)

// quotedRE finds the labels of the answers or plans quoted in a prompt.
var quotedRE = regexp.MustCompile(`(?m)^<<<BEGIN (?:RESPONSE|PLAN) ([A-Z]+) [0-9a-f]+>>>$`)

// phaseOf says which quorum phase a prompt belongs to: the marker that
// comes first in it (the CLI may wrap the prompt, so it need not be at the
// very start). "" for a prompt without one (ask).
func phaseOf(prompt string) quorum.Phase {
	best, at := quorum.Phase(""), len(prompt)
	for _, p := range []quorum.Phase{quorum.PhaseAnswer, quorum.PhaseReview, quorum.PhaseSynthesis, quorum.PhasePropose, quorum.PhaseVote,
		quorum.PhaseOpening, quorum.PhaseRound(1), quorum.PhaseRound(2), quorum.PhaseVerdict, quorum.PhaseInspect} {
		if i := strings.Index(prompt, quorum.PromptMarker(p)); i >= 0 && i < at {
			best, at = p, i
		}
	}
	return best
}

var (
	// idsRE finds objection ids; fileRE and addedRE the first changed file
	// and added line of a review prompt.
	idsRE   = regexp.MustCompile(`\bO\d+\b`)
	fileRE  = regexp.MustCompile(`(?m)^File: (\S+) \(`)
	addedRE = regexp.MustCompile(`(?m)^\s*(\d+) \+ `)
)

// lineAfter returns the rest of the prompt's line that starts with lead.
func lineAfter(prompt, lead string) string {
	for _, l := range strings.Split(prompt, "\n") {
		if rest, ok := strings.CutPrefix(l, lead); ok {
			return rest
		}
	}
	return ""
}

// debater answers a debate's prompts as the side the prompt names:
// proponents argue and answer what they are asked to; opponents raise a
// blocking and a minor objection in the opening, then rule their newly
// answered objections answered.
func debater(name, p string) string {
	pro := strings.Contains(p, "You are Proponent ")
	switch phase := phaseOf(p); {
	case phase == quorum.PhaseOpening && pro:
		return fmt.Sprintf(`{"argument": "%s argues for: one static binary per tool."}`, name)
	case phase == quorum.PhaseOpening:
		return fmt.Sprintf(`{"argument": "%s argues against.", "objections": [{"severity": "blocking", "text": "%s: nobody on the team knows Go."}, {"severity": "minor", "text": "%s: the name is odd."}]}`, name, name, name)
	case pro:
		var answers []string
		for _, id := range idsRE.FindAllString(lineAfter(p, "Answer these objections, most severe first: "), -1) {
			answers = append(answers, fmt.Sprintf(`{"objection": %q, "answer": "%s: a two-day course covers it."}`, id, name))
		}
		return fmt.Sprintf(`{"argument": "%s still argues for.", "answers": [%s]}`, name, strings.Join(answers, ", "))
	}
	var rulings []string
	for _, part := range strings.Split(lineAfter(p, "First rule on your own objections: "), "), ") {
		if id := idsRE.FindString(part); id != "" && strings.Contains(part, "newly answered") {
			rulings = append(rulings, fmt.Sprintf(`{"objection": %q, "status": "answered", "reason": "%s is satisfied"}`, id, name))
		}
	}
	return fmt.Sprintf(`{"argument": "%s concedes what was answered.", "rulings": [%s]}`, name, strings.Join(rulings, ", "))
}

// panelist is a scripted model behind the local model API: it answers each
// phase's prompt in the shape quorum asks for (a JSON verdict, a Markdown
// synthesis, a JSON plan, a JSON vote), streamed in a few chunks.
func panelist(name string, bias int) modelapi.Responder {
	return func(req modelapi.Request) modelapi.Reply {
		p := req.UserText
		score := func(label string) int { return 5 + (bias+int(label[0]))%5 }
		var text string
		switch phaseOf(p) {
		case quorum.PhaseAnswer:
			text = fmt.Sprintf("%s answers: yes, adopt Go for the CLI tools, one tool at a time.", name)
		case quorum.PhaseReview:
			type assessment struct {
				Response   string   `json:"response"`
				Score      int      `json:"score"`
				Strengths  []string `json:"strengths"`
				Weaknesses []string `json:"weaknesses"`
			}
			var v struct {
				Reviews []assessment `json:"reviews"`
				Ranking []string     `json:"ranking"`
			}
			for _, m := range quotedRE.FindAllStringSubmatch(p, -1) {
				v.Reviews = append(v.Reviews, assessment{m[1], score(m[1]), []string{"clear"}, []string{"brief"}})
				v.Ranking = append(v.Ranking, m[1])
			}
			b, _ := json.Marshal(v)
			text = string(b)
		case quorum.PhaseSynthesis:
			text = fmt.Sprintf("## Conclusion\nAdopt Go, tool by tool (synthesis by %s).\n\n## Key points\n- Single static binaries.\n- Fast builds.\n\n## Consensus\n- Go suits CLI tools.\n\n## Disagreements\n- None.\n", name)
		case quorum.PhasePropose:
			text = fmt.Sprintf(`{"title": "%s's plan", "steps": ["Pick the first tool", "Port it", "Ship it"], "risks": ["Team unfamiliar with Go"]}`, name)
		case quorum.PhaseVote:
			label := "A"
			if m := quotedRE.FindStringSubmatch(p); m != nil {
				label = m[1]
			}
			text = fmt.Sprintf(`{"score": %d, "reasoning": "%s likes it"}`, score(label), name)
		case quorum.PhaseOpening, quorum.PhaseRound(1), quorum.PhaseRound(2):
			text = debater(name, p)
		case quorum.PhaseVerdict:
			var rulings []string
			for _, id := range idsRE.FindAllString(lineAfter(p, "These objections were answered in the last round and await a ruling: "), -1) {
				rulings = append(rulings, fmt.Sprintf(`{"objection": %q, "status": "answered"}`, id))
			}
			text = fmt.Sprintf(`{"position": "for", "summary": "verdict by %s", "rulings": [%s], "wouldChange": ["a failed pilot"]}`, name, strings.Join(rulings, ", "))
		case quorum.PhaseInspect:
			file, line := "", "1"
			if m := fileRE.FindStringSubmatch(p); m != nil {
				file = m[1]
			}
			if m := addedRE.FindStringSubmatch(p); m != nil {
				line = m[1]
			}
			text = fmt.Sprintf(`{"findings": [{"file": %q, "startLine": %s, "endLine": %s, "severity": "major", "category": "bug", "explanation": "%s: the first added line is wrong.", "suggestion": "Fix it."}]}`, file, line, line, name)
		default:
			text = name + " says hello from the local model API."
		}
		return modelapi.Text(text).WithChunks(3)
	}
}

// realPanel is the set-up of every test of the quorum binary on the real
// Copilot CLI, offline: the CLI's path (failing the test, not skipping it,
// when it is missing), the built binary, a sandbox with a local model API
// serving three scripted panelists, alpha, beta and gamma, and the
// binary's environment in the sandbox.
type realPanel struct {
	cli, bin string
	sb       *clitest.Sandbox
	api      *modelapi.Server
}

// env is a fresh offline environment for one run of the binary: homes of
// its own (clitest.OfflineEnv), so that runs side by side share no
// session store or config; the built-in GitHub MCP server only slows
// start-up offline.
func (p realPanel) env(t *testing.T) []string {
	return append(clitest.OfflineEnv(t, p.api.URL()), "QUORUM_CLI_ARGS=--disable-builtin-mcps")
}

func newRealPanel(t *testing.T) realPanel {
	t.Helper()
	cli, err := clitest.Binary()
	if err != nil {
		t.Fatalf("the real-CLI tests need the Copilot CLI: %v", err)
	}
	p := realPanel{cli: cli, bin: quorumBinary(t), sb: clitest.NewSandbox(t)}
	p.api = p.sb.StartModelAPI(t, modelapi.Config{Models: map[string]modelapi.Responder{
		"alpha": panelist("alpha", 0), "beta": panelist("beta", 1), "gamma": panelist("gamma", 2),
	}})
	return p
}

// The quorum binary against the real Copilot CLI, offline: the CLI talks to
// a local model API with scripted models, inside the sandbox's network
// namespace. The binary starts the CLI itself, so the binary runs in the
// sandbox (its child inherits the namespace) with the offline environment.
// These tests fail, not skip, when the CLI is missing.
func TestRealCLI(t *testing.T) {
	p := newRealPanel(t)
	cliBin, bin, sb := p.cli, p.bin, p.sb
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel) // after the parallel subtests
	quorumCmd := func(t *testing.T, args ...string) *exec.Cmd {
		cmd := sb.Command(ctx, bin, append(args, "--cli-path", cliBin)...)
		cmd.Env = p.env(t)
		cmd.Dir = t.TempDir()
		return cmd
	}
	models := []string{"-m", "alpha", "-m", "beta", "-m", "gamma"}

	t.Run("discuss", func(t *testing.T) {
		t.Parallel()
		r := runBinary(t, quorumCmd(t, append([]string{"discuss", "-o", "json", "--moderator", "beta", goldenTopic}, models...)...))
		if r.code != cmdutil.ExitOK {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stderr, r.stdout)
		}
		var out jsonOut
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		d := out.Result
		if out.Simulated || out.Command != "discuss" || len(d.Answers) != 3 || len(d.Reviews) != 3 || !d.Ranked || d.Degraded || len(d.Failures) != 0 {
			t.Fatalf("discussion: %+v", out)
		}
		if !strings.Contains(d.Answers[0].Text, "alpha answers") || d.Synthesis == nil || d.Synthesis.Moderator != "beta" ||
			!strings.Contains(d.Synthesis.Conclusion, "synthesis by beta") || len(d.Synthesis.KeyPoints) != 2 || len(d.Synthesis.Disagreements) != 0 {
			t.Errorf("answers %+v, synthesis %+v", d.Answers, d.Synthesis)
		}
		if d.Usage.Calls == 0 || d.Usage.InputTokens == 0 {
			t.Errorf("no usage reported: %+v", d.Usage)
		}
		if !strings.Contains(r.stderr, "quorum: review phase started: alpha, beta, gamma") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
	})

	t.Run("plan", func(t *testing.T) {
		t.Parallel()
		r := runBinary(t, quorumCmd(t, append([]string{"plan", "-q", goldenTask}, models...)...))
		if r.code != cmdutil.ExitOK || r.stderr != "" {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stderr, r.stdout)
		}
		for _, want := range []string{"PROPOSALS", "Plan A · ", "VOTES", "likes it", "STANDINGS", "WINNING PLAN", "1. Pick the first tool", "Why it won: ",
			"Participants: alpha, beta, gamma", "USAGE"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
			}
		}
		if strings.Contains(r.stdout, "SIMULATED") {
			t.Errorf("a real run is labelled simulated:\n%s", r.stdout)
		}
	})

	t.Run("debate", func(t *testing.T) {
		t.Parallel()
		r := runBinary(t, quorumCmd(t, append([]string{"debate", "-o", "json", "--moderator", "beta", goldenClaim}, models...)...))
		if r.code != cmdutil.ExitOK {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stderr, r.stdout)
		}
		var out debateOut
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		d := out.Result
		if out.Simulated || d.Degraded || len(d.Debaters) != 3 || d.Debaters[1].Model != "beta" || d.Debaters[1].Side != quorum.SideOpponent {
			t.Fatalf("debate: %+v", out)
		}
		// beta objected in the opening, alpha and gamma answered in round
		// 1, beta ruled both answered in round 2: settled after the last.
		if len(d.Ledger) != 2 || d.Ledger[0].Status != quorum.StatusAnswered || d.Ledger[0].Severity != quorum.SeverityBlocking || len(d.Ledger[0].Answers) != 2 ||
			d.End.RoundsHeld != 2 || !d.End.Settled || len(d.Turns) != 9 {
			t.Errorf("ledger %+v, end %+v, %d turns", d.Ledger, d.End, len(d.Turns))
		}
		if v := d.Verdict; v == nil || v.Moderator != "beta" || v.Position != quorum.PositionFor || v.Summary != "verdict by beta" || len(v.Standing.Blocking) != 0 {
			t.Errorf("verdict %+v", d.Verdict)
		}
		if !strings.Contains(r.stderr, "quorum: round-2 phase started: alpha, beta, gamma") {
			t.Errorf("stderr:\n%s", r.stderr)
		}
	})

	t.Run("review", func(t *testing.T) {
		t.Parallel()
		diff, err := filepath.Abs(goldenDiff)
		if err != nil {
			t.Fatal(err)
		}
		sarif := filepath.Join(t.TempDir(), "review.sarif")
		r := runBinary(t, quorumCmd(t, append([]string{"review", "-q", "-o", "json", "--sarif", sarif, diff}, models...)...))
		if r.code != cmdutil.ExitOK || r.stderr != "" {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stderr, r.stdout)
		}
		var out reviewOut
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		// Every model found the same problem: one finding, agreed by three.
		rv := out.Result
		if len(rv.Inspections) != 3 || len(rv.Findings) != 1 || rv.Findings[0].Agreement != 3 || rv.Findings[0].File != "internal/store/db.go" ||
			rv.Findings[0].StartLine != 13 || rv.Findings[0].Severity != quorum.SeverityMajor || rv.Degraded {
			t.Errorf("review: %+v", rv)
		}
		if s := readSARIF(t, sarif); len(s.Runs[0].Results) != 1 || s.Runs[0].Results[0].Level != "warning" {
			t.Errorf("SARIF: %+v", s.Runs[0].Results)
		}
		// The gate: a major finding fails --fail-on major.
		if r := runBinary(t, quorumCmd(t, append([]string{"review", "-q", "--fail-on", "major", diff}, models...)...)); r.code != cmdutil.ExitFailure ||
			!strings.Contains(r.stderr, "the review found 1 finding at or above major") {
			t.Errorf("--fail-on major: exit %d, stderr %q", r.code, r.stderr)
		}
	})

	// Shell completion asks the CLI for the model ids.
	t.Run("complete-models", func(t *testing.T) {
		t.Parallel()
		cmd := sb.Command(ctx, bin, "__complete", "discuss", "-m", "alpha,")
		cmd.Env = append(p.env(t), "COPILOT_CLI_PATH="+cliBin)
		r := runBinary(t, cmd)
		if r.code != cmdutil.ExitOK || !strings.Contains(r.stdout, "alpha,beta") || !strings.Contains(r.stdout, "alpha,gamma") || strings.Contains(r.stdout, "alpha,alpha") {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})

	// A token GitHub refuses, and a GitHub out of reach, are reported as
	// that, not as a missing login; no token at all is a missing login.
	// Each says how to try quorum without the CLI. (CLI 1.0.102 says it is
	// logged in whenever it has a token: the refusal comes with the first
	// request to GitHub, which here is models.list.)
	t.Run("auth", func(t *testing.T) {
		t.Parallel()
		ln, err := sb.Listen()
		if err != nil {
			t.Fatal(err)
		}
		refuse := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}`)
		})}
		go refuse.Serve(ln)
		defer refuse.Close()
		url := "http://" + ln.Addr().String()
		cmd := quorumCmd(t, "models")
		cmd.Env = append(cmd.Env, "COPILOT_DEBUG_GITHUB_API_URL="+url, "COPILOT_API_URL="+url, "HTTP_PROXY=", "HTTPS_PROXY=", "http_proxy=", "https_proxy=")
		r := runBinary(t, cmd)
		if r.code != cmdutil.ExitFailure || !strings.Contains(r.stderr, "GitHub refused the token in $COPILOT_SDK_AUTH_TOKEN (HTTP 401 Unauthorized: Bad credentials): it is invalid or expired") ||
			!strings.Contains(r.stderr, "add --sim") {
			t.Errorf("refused: exit %d, stderr %q", r.code, r.stderr)
		}
		cmd = quorumCmd(t, "models")
		cmd.Env = append(cmd.Env, "COPILOT_DEBUG_GITHUB_API_URL=http://127.0.0.1:9", "COPILOT_API_URL=http://127.0.0.1:9")
		r = runBinary(t, cmd)
		if r.code != cmdutil.ExitFailure || !strings.Contains(r.stderr, "the Copilot CLI could not reach GitHub Copilot (error sending request") ||
			!strings.Contains(r.stderr, "check the network") || !strings.Contains(r.stderr, "add --sim") {
			t.Errorf("unreachable: exit %d, stderr %q", r.code, r.stderr)
		}
		cmd = quorumCmd(t, "models")
		cmd.Env = append(cmd.Env, "COPILOT_SDK_AUTH_TOKEN=")
		r = runBinary(t, cmd)
		if r.code != cmdutil.ExitFailure || !strings.Contains(r.stderr, "the Copilot CLI is not logged in") || !strings.Contains(r.stderr, "copilot login") ||
			!strings.Contains(r.stderr, "add --sim") {
			t.Errorf("no token: exit %d, stderr %q", r.code, r.stderr)
		}
	})

	t.Run("ask", func(t *testing.T) {
		t.Parallel()
		r := runBinary(t, quorumCmd(t, "ask", "-m", "gamma", "Hello?"))
		if r.code != cmdutil.ExitOK || r.stdout != "gamma says hello from the local model API.\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
}
