package quorum_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// hasProblem reports whether one of problems contains sub.
func hasProblem(problems []string, sub string) bool {
	return slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, sub) })
}

func TestParsersCutHugeInput(t *testing.T) {
	huge := strings.Repeat("{[", 200<<10)
	if _, problems, ok := quorum.ParseVerdict(huge, []string{"A"}); ok || !hasProblem(problems, "only the first") {
		t.Errorf("huge verdict: ok=%v problems=%v", ok, problems)
	}
	if _, problems, ok := quorum.ParseBallot(huge); ok || !hasProblem(problems, "only the first") {
		t.Errorf("huge ballot: ok=%v problems=%v", ok, problems)
	}
}
