package quorum

import (
	"fmt"
	"slices"
	"strings"
)

// ParseDecision parses a debate moderator's verdict: JSON {"position":
// "for", "summary": "…", "rulings": [{"objection": "O4", "status":
// "answered", "reason": "…"}], "wouldChange": ["…"]} (in prose or a code
// fence), or else Markdown: a Position section or "Position: …" line, and
// sections Summary, Rulings and What would change the verdict. The
// position may be said in other words (supported, rejected, split, "in
// favour"). Rulings on objections not among ids are left out with a
// problem. It reports whether a position was found: a verdict without one
// is no verdict.
//
// Debate calls it on the verdict; it is exported for code that reads
// replies outside a run (see Parsing in the package doc).
func ParseDecision(text string, ids []string) (Decision, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	dec, found := decisionFromJSON(text, &problems)
	if !found {
		dec = decisionFromText(text, &problems)
	}
	var rulings []Ruling
	for _, ru := range dedupe(dec.Rulings, func(r Ruling) string { return r.Objection }, "rulings", &problems) {
		if !slices.Contains(ids, ru.Objection) {
			problems = append(problems, fmt.Sprintf("a ruling on %s, which is not in the ledger, was ignored", ru.Objection))
			continue
		}
		rulings = append(rulings, ru)
	}
	dec.Rulings = rulings
	dec.Summary = cutRunes(strings.TrimSpace(dec.Summary), maxArgumentRunes)
	if dec.Position == "" {
		problems = append(problems, "no position found: for, against or undecided")
	}
	return dec, problems, dec.Position != ""
}

var (
	positionKeys    = []string{"position", "verdict", "decision", "stance", "outcome", "conclusion", "ruling"}
	summaryKeys     = []string{"summary", "reasoning", "rationale", "reason", "explanation", "why", "justification"}
	wouldChangeKeys = []string{"wouldchange", "wouldchangetheverdict", "whatwouldchange", "whatwouldchangetheverdict", "changeif", "wouldchangeif", "conditions", "tochange"}
)

// decisionFromJSON interprets the first JSON object that has a position
// or a summary.
func decisionFromJSON(text string, problems *[]string) (Decision, bool) {
	for _, obj := range jsonObjects(text) {
		pos, hasPos := field(obj, positionKeys...)
		sum, hasSum := field(obj, summaryKeys...)
		if !hasPos && !hasSum {
			continue
		}
		var dec Decision
		if hasPos {
			p, ok := parsePosition(str(pos))
			if !ok {
				*problems = append(*problems, fmt.Sprintf("the position %q is not for, against or undecided", cutRunes(str(pos), 40)))
			}
			dec.Position = p
		}
		dec.Summary = strings.Join(strs(sum), "\n\n")
		if rul, ok := field(obj, rulingsKeys...); ok {
			dec.Rulings = readRulings(rul, problems)
		}
		if wc, ok := field(obj, wouldChangeKeys...); ok {
			dec.WouldChange = strs(wc)
		} else {
			*problems = append(*problems, "the verdict does not say what would change it")
		}
		return dec, true
	}
	return Decision{}, false
}

// decisionSections name the Markdown sections of a verdict.
var decisionSections = map[string]string{
	"position": "position", "verdict": "position", "decision": "position", "stance": "position", "outcome": "position",
	"summary": "summary", "reasoning": "summary", "rationale": "summary", "why": "summary",
	"rulings": "rulings", "rulingsonobjections": "rulings", "rulingsonpendingobjections": "rulings",
	"whatwouldchangetheverdict": "change", "whatwouldchangeit": "change", "wouldchange": "change",
	"whatwouldchangemymind": "change", "changeif": "change", "whatwouldchange": "change", "wouldchangetheverdict": "change",
}

func decisionFromText(text string, problems *[]string) Decision {
	*problems = append(*problems, "no JSON verdict found; read as Markdown")
	var dec Decision
	secs, pre, _ := textSections(text, decisionSections)
	if body := paragraph(secs["position"]); body != "" {
		first, _, _ := strings.Cut(body, "\n")
		p, ok := parsePosition(first)
		if !ok {
			*problems = append(*problems, fmt.Sprintf("the position %q is not for, against or undecided", cutRunes(first, 40)))
		}
		dec.Position = p
	}
	dec.Summary = paragraph(secs["summary"])
	if dec.Summary == "" {
		dec.Summary = paragraph(pre)
	}
	for _, it := range listItems(secs["rulings"]) {
		if ru, ok := parseRulingLine(it); ok {
			dec.Rulings = append(dec.Rulings, ru)
		} else {
			*problems = append(*problems, fmt.Sprintf("a ruling could not be read; ignored: %s", cutRunes(it, 60)))
		}
	}
	dec.WouldChange = listItems(secs["change"])
	if _, ok := secs["change"]; !ok {
		*problems = append(*problems, "the verdict does not say what would change it")
	}
	return dec
}

// positionWords map the words of a position to it.
var positionWords = map[string]Position{
	"for": PositionFor, "pro": PositionFor, "yes": PositionFor, "support": PositionFor, "supports": PositionFor,
	"supported": PositionFor, "accept": PositionFor, "accepted": PositionFor, "holds": PositionFor, "true": PositionFor,
	"agree": PositionFor, "proponents": PositionFor, "proponent": PositionFor, "infavour": PositionFor, "infavor": PositionFor,
	"forclaim": PositionFor, "fortheclaim": PositionFor, "theclaimholds": PositionFor,
	"against": PositionAgainst, "con": PositionAgainst, "no": PositionAgainst, "oppose": PositionAgainst, "opposed": PositionAgainst,
	"reject": PositionAgainst, "rejected": PositionAgainst, "fails": PositionAgainst, "false": PositionAgainst,
	"disagree": PositionAgainst, "opponents": PositionAgainst, "opponent": PositionAgainst, "againsttheclaim": PositionAgainst,
	"undecided": PositionUndecided, "split": PositionUndecided, "mixed": PositionUndecided, "inconclusive": PositionUndecided,
	"tie": PositionUndecided, "neutral": PositionUndecided, "unclear": PositionUndecided, "draw": PositionUndecided,
	"unresolved": PositionUndecided, "nodecision": PositionUndecided,
}

// vagueWords are position words that, inside a sentence, need not be
// about the claim ("no objection…", "for now", "unresolved questions").
var vagueWords = map[string]bool{"no": true, "yes": true, "true": true, "false": true, "for": true, "unresolved": true, "unclear": true, "neutral": true}

// parsePosition reads a position: the whole text as one of the words,
// or else the first word of it that is one and says nothing else inside
// a sentence ("for" only as the first word).
func parsePosition(s string) (Position, bool) {
	if p, ok := positionWords[normKey(s)]; ok {
		return p, true
	}
	low := strings.ToLower(s)
	if strings.Contains(low, "in favour") || strings.Contains(low, "in favor") {
		return PositionFor, true
	}
	words := strings.FieldsFunc(low, func(r rune) bool { return !('a' <= r && r <= 'z') })
	for i, w := range words {
		if vagueWords[w] && (i > 0 || w != "for") {
			continue
		}
		if p, ok := positionWords[w]; ok {
			return p, true
		}
	}
	return "", false
}
