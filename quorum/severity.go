package quorum

import "strings"

// Severity is how much a debate's objection or a review's finding weighs.
// Debate and Review share the scale, so that "blocking" means the same
// in both: while it stands, the claim cannot be accepted or the change
// merged.
type Severity string

// The severities, most severe first.
const (
	// SeverityBlocking: the claim cannot be accepted, the change cannot be
	// merged, while it stands.
	SeverityBlocking Severity = "blocking"
	// SeverityMajor: a serious weakness that should be dealt with, but not
	// decisive alone.
	SeverityMajor Severity = "major"
	// SeverityMinor: worth noting or fixing.
	SeverityMinor Severity = "minor"
)

// Severities lists the severities, most severe first.
var Severities = []Severity{SeverityBlocking, SeverityMajor, SeverityMinor}

// Rank orders severities: 3 for blocking, 2 for major, 1 for minor and 0
// for anything else.
func (s Severity) Rank() int {
	switch s {
	case SeverityBlocking:
		return 3
	case SeverityMajor:
		return 2
	case SeverityMinor:
		return 1
	}
	return 0
}

// AtLeast reports whether s is a severity and at least as severe as t.
func (s Severity) AtLeast(t Severity) bool { return s.Rank() > 0 && s.Rank() >= t.Rank() }

// severityWords maps the words models use for severities, from their own
// scale or another one (linters, bug trackers, SARIF), to ours.
var severityWords = map[string]Severity{
	"blocking": SeverityBlocking, "blocker": SeverityBlocking, "block": SeverityBlocking, "critical": SeverityBlocking,
	"fatal": SeverityBlocking, "severe": SeverityBlocking, "showstopper": SeverityBlocking, "high": SeverityBlocking,
	"error": SeverityBlocking, "must": SeverityBlocking, "mustfix": SeverityBlocking,
	"major": SeverityMajor, "medium": SeverityMajor, "moderate": SeverityMajor, "important": SeverityMajor,
	"warning": SeverityMajor, "significant": SeverityMajor, "should": SeverityMajor, "shouldfix": SeverityMajor,
	"minor": SeverityMinor, "low": SeverityMinor, "trivial": SeverityMinor, "nit": SeverityMinor, "nitpick": SeverityMinor,
	"info": SeverityMinor, "note": SeverityMinor, "suggestion": SeverityMinor, "style": SeverityMinor, "optional": SeverityMinor,
}

// ParseSeverity reads a severity as a model writes it: one of the three
// names, or a word of another scale (critical, high or error for
// blocking; medium or warning for major; low, nit or info for minor), in
// any case, with or without decoration ("**Major**", "[high]").
//
// The parsers read every severity with it; it is exported, like them, for
// code that reads replies outside a run (see Parsing in the package doc).
func ParseSeverity(s string) (Severity, bool) {
	sev, ok := severityWords[normKey(strings.TrimSpace(s))]
	return sev, ok
}
