package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// debateOut is the envelope of debate -o json.
type debateOut struct {
	cmdutil.Envelope
	Result quorum.DebateResult `json:"result"`
}

// Flags reach the debate: the sides by the order of -m, the moderator,
// the rounds; the progress header says who argues which side.
func TestDebateFlags(t *testing.T) {
	o := newHarness(t).run("debate", "--sim", "-o", "json", "-m", "sim-gamma,sim-beta", "--moderator", "sim-alpha", "--rounds", "1", goldenClaim)
	var r debateOut
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil || o.code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %v\n%s", o.code, err, o.stderr)
	}
	d := r.Result
	if r.Command != "debate" || d.Rounds != 1 || d.End.RoundsHeld > 1 || len(d.Debaters) != 2 ||
		d.Debaters[0].Model != "sim-gamma" || d.Debaters[0].Side != quorum.SideProponent || d.Debaters[1].Side != quorum.SideOpponent ||
		d.Verdict == nil || d.Verdict.Moderator != "sim-alpha" {
		t.Errorf("debate = %+v", d)
	}
	if !strings.Contains(o.stderr, "quorum: debating with sim-gamma (for), sim-beta (against); moderator sim-alpha (simulated)\n") ||
		!strings.Contains(o.stderr, "quorum: "+d.End.Reason+"\n") {
		t.Errorf("stderr:\n%s", o.stderr)
	}
}

func TestDebateUsageErrors(t *testing.T) {
	h := newHarness(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"debate", "--sim"}, "quorum debate needs a claim"},
		{[]string{"debate", "--sim", "--rounds", "0", "c"}, `invalid argument "0" for --rounds: must be 1 to 10`},
		{[]string{"debate", "--sim", "--rounds", "11", "c"}, `invalid argument "11" for --rounds: must be 1 to 10`},
		{[]string{"debate", "--sim", "--no-review", "c"}, "quorum debate does not take --no-review (quorum chat and quorum discuss"},
		{[]string{"debate", "--sim", "--show", "ranking", "c"}, `--show: no section "ranking" in the debate report (sections: arguments, ledger, verdict, usage)`},
	} {
		o := h.run(c.args...)
		if o.code != cmdutil.ExitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q", c.args, o.code, o.stderr)
		}
	}
}

// A debater that drops out leaves the debate degraded (exit 3) while its
// side has someone left; a side with nobody left fails it (exit 1), and
// what came in is printed.
func TestDebateDegradedAndFailed(t *testing.T) {
	h := newHarness(t)
	h.simModels = simWith(failing("sim-gamma", quorum.PhaseRound(1)))
	o := h.run("debate", "--sim", "-q", goldenClaim)
	if o.code != cmdutil.ExitDegraded || !strings.Contains(o.stdout, "sim-gamma (dropped out in the round-1 phase)") || !strings.Contains(o.stdout, "DEGRADED") {
		t.Errorf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	h.simModels = simWith(failing("sim-beta", quorum.PhaseOpening))
	o = h.run("debate", "--sim", "-q", goldenClaim)
	if o.code != cmdutil.ExitFailure || !strings.Contains(o.stderr, "the debate failed: no opponent was left after the opening phase") ||
		!strings.Contains(o.stdout, "INCOMPLETE") || !strings.Contains(o.stdout, "Proponent") {
		t.Errorf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// The demo's models write what quorum asks for, so a simulated debate or
// review shows no parse problems; a model that writes Markdown is read
// through the fallback, and the report says so.
func TestSimDemoHasNoParseProblems(t *testing.T) {
	h := newHarness(t)
	for _, args := range [][]string{{"debate", "--sim", goldenClaim}, {"review", "--sim", "--fail-on", "none", goldenDiff}} {
		o := h.run(args...)
		if o.code != cmdutil.ExitOK || strings.Contains(o.stdout, "Parse problems") {
			t.Errorf("%s: exit %d, parse problems in the demo:\n%s", args[0], o.code, o.stdout)
		}
	}
	h.simModels = func(p pace) []sim.Model {
		return sim.Paced(simquorum.Models("sim-alpha", "sim-beta"+simquorum.MarkdownSuffix, simquorum.Moderator), p.first, p.chunk)
	}
	o := h.run("debate", "--sim", "-m", "sim-alpha,sim-beta"+simquorum.MarkdownSuffix, goldenClaim)
	if o.code != cmdutil.ExitOK || !strings.Contains(o.stdout, "Parse problems: no JSON reply found; read as Markdown") {
		t.Errorf("a Markdown debater: exit %d:\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}
