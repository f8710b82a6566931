package runquorum

import (
	"fmt"
	"strings"

	"github.com/quorum-go/quorum/quorum"
)

// The findings gate of review and agent: --fail-on.

// findingsError is a review whose findings reach --fail-on: the gate is
// closed, exit status 1.
type findingsError struct {
	failOn quorum.Severity
	ids    []string
}

func (e *findingsError) Error() string {
	return fmt.Sprintf("the review found %s at or above %s (--fail-on %s): %s",
		Plural(len(e.ids), "finding"), e.failOn, e.failOn, strings.Join(e.ids, ", "))
}

// Gate returns a *findingsError when a finding is at least failOn ("none"
// passes everything).
func Gate(fs []quorum.MergedFinding, failOn string) error {
	if failOn == "none" {
		return nil
	}
	level := quorum.Severity(failOn)
	var ids []string
	for _, f := range fs {
		if f.Severity.AtLeast(level) {
			ids = append(ids, f.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return &findingsError{failOn: level, ids: ids}
}
