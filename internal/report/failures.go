package report

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// WithAdvice appends to msg, the text of a model's failure, what a person
// at the command line can do about err, the quorum error behind it. The
// quorum package's errors speak to programs, in Config's terms; the flags
// that set Config are the command's, so the advice is given here, and
// Config's names become the flags' (Plain). A model stopped because the
// whole run reached --timeout is told to raise --timeout, one that ran
// out its phase's time to raise --phase-timeout: never both, and never
// to lower one.
func WithAdvice(msg string, err error) string {
	msg = Plain(msg)
	var a string
	switch {
	case errors.Is(err, quorum.ErrTimeout) && strings.Contains(msg, "--timeout ("):
		a = "raise --timeout to give the whole run more time"
	case errors.Is(err, quorum.ErrTimeout):
		a = "raise --phase-timeout, or leave the slow model out"
	case errors.Is(err, quorum.ErrEmptyReply):
		a = "check that the model id is right (quorum models) and that the model is available"
	case errors.Is(err, quorum.ErrUnparsable):
		a = "--transcript FILE records the whole reply"
	default:
		return msg
	}
	return msg + "; " + a
}

// plainNames are the quorum package's names for what the command's flags
// set, and the flags. Its errors name Config's fields for programs; a
// person at the command line knows the flags.
var plainNames = strings.NewReplacer(
	"Config.PhaseTimeout", "--phase-timeout",
	"Config.Timeout", "--timeout",
	"Config.MaxConcurrency", "--concurrency",
	"Config.AnswersPerReviewer", "--reviewers",
	"Config.Rounds", "--rounds",
	"Config.Moderator", "--moderator",
	"Config.MinModels", "the least number of models",
	"Config.Models", "the models (-m)",
	"AgentConfig.MaxToolCalls", "--max-tool-calls",
	"AgentConfig.Executor", "--executor",
	"AgentConfig.FailOn", "--fail-on",
	"AgentConfig.Shell", "--approve",
)

// Plain is s with the quorum package's Config names said as the flags
// that set them ("the phase timeout (--phase-timeout, 5m)"), for people.
func Plain(s string) string {
	if !strings.Contains(s, "Config.") {
		return s
	}
	s = plainNames.Replace(s)
	// "--max-tool-calls (--max-tool-calls)": a message that named both.
	for _, f := range []string{"--max-tool-calls", "--approve", "--fail-on", "--executor"} {
		s = strings.ReplaceAll(s, f+" ("+f+")", f)
	}
	return s
}

// ModelError is the real error of a model's failure, cleaned for the
// terminal, without the model and phase that a display shows anyway, and
// with what to do about it.
func ModelError(err error) string {
	var me *quorum.ModelError
	if errors.As(err, &me) {
		err = me.Err
	}
	return sanitize.Text(WithAdvice(strings.TrimPrefix(err.Error(), "quorum: "), err))
}

// kindErr is the quorum error behind a Failure of kind k, whose error is
// kept as text only; nil when no sentinel stands for k.
func kindErr(k string) error {
	switch k {
	case "timeout":
		return quorum.ErrTimeout
	case "empty":
		return quorum.ErrEmptyReply
	case "unparsable":
		return quorum.ErrUnparsable
	}
	return nil
}

// TargetNoun names what a phase's target label refers to.
func TargetNoun(p quorum.Phase) string {
	switch p {
	case quorum.PhaseVote, quorum.PhasePropose:
		return "plan"
	case quorum.PhaseExecute, quorum.PhaseFix:
		return "step"
	}
	return "response"
}

// FailureLines describes failures, one line per distinct error: who (the
// models, and the plans of failed votes), where, what kind, the real
// error, and what to do about it. When the CLI dies every model fails the
// same way; the message is then given once, with every model it hit,
// instead of once per model.
func FailureLines(fs []quorum.Failure) []string {
	type group struct {
		phase quorum.Phase
		kind  string
		err   string
		who   []string
	}
	var groups []*group
	index := map[[3]string]*group{}
	for _, f := range fs {
		k := [3]string{string(f.Phase), f.Kind, f.Error}
		g := index[k]
		if g == nil {
			g = &group{phase: f.Phase, kind: f.Kind, err: f.Error}
			index[k] = g
			groups = append(groups, g)
		}
		who := f.Model
		if f.Target != "" {
			who += " on " + TargetNoun(f.Phase) + " " + f.Target
		}
		g.who = append(g.who, who)
	}
	out := make([]string, len(groups))
	for i, g := range groups {
		msg := fmt.Sprintf("%s, %s phase (%s): %s", joinWho(g.who), g.phase, g.kind, errorText(g.err))
		out[i] = sanitize.Line(WithAdvice(msg, kindErr(g.kind)))
	}
	return out
}

// errorText is a failure's error for people: without the package
// prefix, and a turn cut short by the run's cancellation said as such
// rather than as Go's "context canceled".
func errorText(err string) string {
	if err == context.Canceled.Error() {
		return "stopped before it finished, when the run was cancelled"
	}
	return Plain(strings.TrimPrefix(err, "quorum: "))
}

// joinWho lists the models a failure hit, folding "m on plan A", "m on
// plan B" into "m on plans A, B".
func joinWho(who []string) string {
	var out []string
	targets := map[string][]string{}
	for _, w := range who {
		model, target, ok := strings.Cut(w, " on ")
		if !ok {
			out = append(out, w)
			continue
		}
		if _, seen := targets[model]; !seen {
			out = append(out, model+" on ")
		}
		targets[model] = append(targets[model], target)
	}
	for i, o := range out {
		model, ok := strings.CutSuffix(o, " on ")
		if !ok {
			continue
		}
		ts := targets[model]
		if len(ts) == 1 {
			out[i] = model + " on " + ts[0]
			continue
		}
		noun, _, _ := strings.Cut(ts[0], " ")
		labels := make([]string, len(ts))
		for j, t := range ts {
			labels[j] = strings.TrimPrefix(t, noun+" ")
		}
		out[i] = fmt.Sprintf("%s on %ss %s", model, noun, strings.Join(labels, ", "))
	}
	return strings.Join(out, ", ")
}
