package quorum

import "regexp"

// The parsers read what models write: review verdicts (ParseVerdict, in
// parse_verdict.go), votes (ParseBallot, parse_ballot.go), proposed plans
// (ParsePlan, parse_plan.go) and syntheses (ParseSynthesis,
// parse_synthesis.go). They take JSON as asked, JSON wrapped in prose or a
// code fence (found by jsonValues, in extract.go), or prose with a FINAL
// RANKING list and N/10 scores. They never invent a value: what cannot be
// read is reported as a problem and left zero. They never panic, on any
// input, and take time roughly linear in the input (which is cut at 256
// KiB).
//
// This file holds what more than one parser reads.

var (
	// scoreKeys name a score in a verdict's assessment or in a vote.
	scoreKeys = []string{"score", "rating", "grade", "points", "mark"}
	// bulletRE matches a list item, bulleted or numbered: a plan's risk, an
	// item of a synthesis section.
	bulletRE = regexp.MustCompile(`^\s*(?:[-*•+]|\d+[.)])\s+(.+)$`)
)
