package runquorum

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/internal/report"
	"github.com/quorum-go/quorum/quorum"
)

// runError is a run that gave no usable result: what happened and every
// model's failure, each distinct error once. When the report with the
// same failures is on the terminal just above, they are not repeated.
type runError struct {
	noun      string
	err       error
	failures  []quorum.Failure
	printed   bool
	simulated bool
}

func (e *runError) Error() string {
	var b strings.Builder
	var tf *quorum.TooFewError
	switch {
	case errors.Is(e.err, quorum.ErrPremiumCap):
		fmt.Fprintf(&b, "the %s stopped at the premium-request cap: %s", e.noun, report.Plain(strings.TrimPrefix(e.err.Error(), "quorum: ")))
	case errors.As(e.err, &tf):
		fmt.Fprintf(&b, "the %s failed: %s", e.noun, tooFewText(tf))
	default:
		fmt.Fprintf(&b, "the %s failed: %s", e.noun, report.Plain(strings.TrimPrefix(e.err.Error(), "quorum: ")))
	}
	if e.printed {
		b.WriteString(" (the failures are listed above)")
	} else {
		for _, l := range report.FailureLines(e.failures) {
			b.WriteString("\n  ✗ " + l)
		}
	}
	if a := e.advice(tf); a != "" {
		b.WriteString("\n" + a)
	}
	return b.String()
}

// advice is what to do after a run that failed, from how it failed: the
// whole run's time limit, or the models' failures, each kind its remedy.
// The CLI's login is named only when a real CLI gave an error: a
// simulated run has no login, and a timeout or an unreadable reply has
// nothing to do with one.
func (e *runError) advice(tf *quorum.TooFewError) string {
	if errors.Is(e.err, quorum.ErrPremiumCap) {
		return "Raise --max-premium, or ask fewer models (-m); --dry-run says what a run would cost."
	}
	if errors.Is(e.err, quorum.ErrTimeout) && tf == nil {
		return "Raise --timeout to give the whole run more time."
	}
	if tf == nil {
		return ""
	}
	kinds := map[string]bool{}
	for _, f := range e.failures {
		kinds[f.Kind] = true
	}
	var do []string
	if kinds["timeout"] {
		do = append(do, "raise --phase-timeout")
	}
	if kinds["empty"] {
		do = append(do, "check the model ids (quorum models)")
	}
	if kinds["unparsable"] {
		do = append(do, "record the replies with --transcript FILE to see what the models wrote")
	}
	if kinds["error"] && !e.simulated {
		do = append(do, "check the model ids (quorum models) and the CLI's login (copilot login)")
	}
	do = append(do, "add models with -m")
	if len(do) > 1 {
		do[len(do)-1] = "or " + do[len(do)-1]
	}
	s := strings.Join(do, ", ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (e *runError) Unwrap() error { return e.err }
