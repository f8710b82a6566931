package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/report"
	"github.com/quorum-go/quorum/quorum"
)

// runError is a run that gave no usable result: what happened and every
// model's failure, each distinct error once. When the report with the
// same failures is on the terminal just above, they are not repeated.
type runError struct {
	noun     string
	err      error
	failures []quorum.Failure
	printed  bool
}

func (e *runError) Error() string {
	var b strings.Builder
	var tf *quorum.TooFewError
	if errors.As(e.err, &tf) {
		fmt.Fprintf(&b, "the %s failed: %s", e.noun, tooFewText(tf))
	} else {
		fmt.Fprintf(&b, "the %s failed: %s", e.noun, strings.TrimPrefix(e.err.Error(), "quorum: "))
	}
	if e.printed {
		b.WriteString(" (the failures are listed above)")
	} else {
		for _, l := range report.FailureLines(e.failures) {
			b.WriteString("\n  ✗ " + l)
		}
	}
	if tf != nil {
		b.WriteString("\nCheck the model ids (quorum models) and the CLI's login (copilot login), raise --phase-timeout, or add models with -m.")
	}
	return b.String()
}

func (e *runError) Unwrap() error { return e.err }
