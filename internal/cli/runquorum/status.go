package runquorum

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
)

// This file is how a run ended, as the JSON envelope says it (status) and
// as the report says it when the run did not finish (incomplete).

// statusOf is how a run ended, for the JSON envelope, and, when it did not
// finish, why, in a sentence for the report.
func statusOf(k Kind, out *quorum.Outcome, runErr error, in *cmdutil.Interrupted) (status, incomplete string) {
	phase := "before its first phase"
	if n := len(out.Phases); n > 0 {
		phase = "in the " + string(out.Phases[n-1].Phase) + " phase"
	}
	var tf *quorum.TooFewError
	switch {
	case in != nil:
		return cmdutil.StatusInterrupted, fmt.Sprintf("the %s was %s %s.", k.Noun, in.What(), phase)
	case errors.As(runErr, &tf):
		return cmdutil.StatusFailed, "the " + k.Noun + " failed: " + tooFewText(tf) + "."
	case errors.Is(runErr, quorum.ErrPremiumCap):
		return cmdutil.StatusDegraded, fmt.Sprintf("the %s stopped at the premium-request cap (--max-premium) %s, with %s premium requests used.", k.Noun, phase, cmdutil.Num(out.Premium.Used))
	case errors.Is(runErr, quorum.ErrTimeout):
		return cmdutil.StatusFailed, fmt.Sprintf("the %s took longer than --timeout and was stopped %s.", k.Noun, phase)
	case runErr != nil:
		return cmdutil.StatusFailed, fmt.Sprintf("the %s failed %s: %s.", k.Noun, phase, report.Plain(strings.TrimPrefix(runErr.Error(), "quorum: ")))
	case out.Degraded:
		return cmdutil.StatusDegraded, ""
	}
	return cmdutil.StatusOK, ""
}

func tooFewText(tf *quorum.TooFewError) string {
	switch {
	case tf.Phase == quorum.PhaseSynthesis:
		return "nobody was left to write the synthesis"
	case tf.Phase == quorum.PhaseVerdict:
		return "nobody was left to give the verdict"
	case tf.Role != "":
		return fmt.Sprintf("no %s was left after the %s phase", tf.Role, tf.Phase)
	}
	return fmt.Sprintf("too few models left after the %s phase (%d left, %d needed)", tf.Phase, len(tf.Left), tf.Need)
}

// NothingToReview is an empty change: not a mistake (a CI job on a
// commit that changes nothing), and nothing for the models to do.
type NothingToReview struct{ Source string }

func (e *NothingToReview) Error() string {
	return "nothing to review: " + e.Source + " is empty"
}
