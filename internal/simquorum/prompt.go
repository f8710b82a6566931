package simquorum

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// This file reads quorum's prompts the way a model would. It knows the
// default prompts' layout: the question after a "Question:" (or "Task:",
// or "Claim:") line, and quoted texts between "<<<BEGIN KIND LABEL
// nonce>>>" and "<<<END KIND LABEL nonce>>>" lines (some blocks, such as
// the LEDGER and the DIFF, have no label).

// block is one quoted text of a prompt.
type block struct {
	kind, label string // "RESPONSE", "A"; label "" for a LEDGER or DIFF
	text        string
	// start and end are where the block, delimiters included, is in the
	// prompt.
	start, end int
}

var beginRE = regexp.MustCompile(`(?m)^<<<BEGIN ([A-Z]+)(?: ([A-Za-z0-9]+))? ([0-9a-f]+)>>>$`)

// blocks returns the quoted texts of a prompt, in order. A block ends only
// at its own END line with the same nonce.
func blocks(prompt string) []block {
	var out []block
	for _, m := range beginRE.FindAllStringSubmatchIndex(prompt, -1) {
		if len(out) > 0 && m[0] < out[len(out)-1].end {
			continue // a BEGIN line inside a block is material, not a block
		}
		kind, nonce := prompt[m[2]:m[3]], prompt[m[6]:m[7]]
		lbl, name := "", kind
		if m[4] >= 0 {
			lbl = prompt[m[4]:m[5]]
			name += " " + lbl
		}
		rest := prompt[m[1]:]
		endLine := "\n<<<END " + name + " " + nonce + ">>>"
		end := strings.Index(rest, endLine)
		if end < 0 {
			continue
		}
		out = append(out, block{kind: kind, label: lbl, text: strings.TrimSpace(rest[:end]), start: m[0], end: m[1] + end + len(endLine)})
	}
	return out
}

// blocksOf returns the blocks of one kind.
func blocksOf(prompt, kind string) []block {
	var out []block
	for _, b := range blocks(prompt) {
		if b.kind == kind {
			out = append(out, b)
		}
	}
	return out
}

// outside returns the prompt without its quoted blocks: quorum's own
// words, where a careful model looks for what it is asked to do.
func outside(prompt string) string {
	var b strings.Builder
	at := 0
	for _, bl := range blocks(prompt) {
		b.WriteString(prompt[at:bl.start])
		at = bl.end
	}
	b.WriteString(prompt[at:])
	return b.String()
}

// subject returns the question or task of a prompt: the text after its
// "Question:" or "Task:" line, up to the next blank line; in a prompt
// without one, its first paragraph.
func subject(prompt string) string {
	for _, head := range []string{"\nQuestion:\n", "\nTask:\n", "\nClaim:\n"} {
		if i := strings.Index(prompt, head); i >= 0 {
			s := prompt[i+len(head):]
			if j := strings.Index(s, "\n\n"); j >= 0 {
				s = s[:j]
			}
			return strings.TrimSpace(s)
		}
	}
	// A plain question: its first paragraph, before any material given
	// with it (git diff | quorum ask "explain this").
	s := strings.TrimSpace(prompt)
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j]
	}
	return strings.TrimSpace(s)
}

var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about above after again against also among another because been before being
		below between both could does doing down during each every from further have having here how into itself just
		more most much must only other over same should some such than that their them then there these they this those
		through under until very want what when where which while whom whose will with would your yours best good make
		need needs using used like well into onto versus what's isn't don't does should we our ours shall might`) {
		stopwords[w] = true
	}
}

// topics returns the n most distinctive words of s (the longest ones that
// are not common words), in the order they appear.
func topics(s string, n int) []string {
	var words []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }) {
		w = strings.ToLower(strings.Trim(w, "-"))
		if len([]rune(w)) < 4 || stopwords[w] || seen[w] {
			continue
		}
		seen[w] = true
		words = append(words, w)
	}
	byLen := slices.Clone(words)
	slices.SortStableFunc(byLen, func(a, b string) int { return len([]rune(b)) - len([]rune(a)) })
	keep := map[string]bool{}
	for _, w := range byLen[:min(n, len(byLen))] {
		keep[w] = true
	}
	var out []string
	for _, w := range words {
		if keep[w] {
			out = append(out, clip(w))
		}
	}
	return out
}

// maxWord is the most of a word a simulated reply echoes. A model names
// a long word, it does not copy it out whole: a reply that echoed a
// 1 MiB word would stream for minutes at the demo's pace (a
// 1,000-character word made a discussion take 13 s instead of 2).
const maxWord = 24

// clip is w cut to maxWord characters, marked as cut.
func clip(w string) string {
	if r := []rune(w); len(r) > maxWord {
		return string(r[:maxWord-1]) + "…"
	}
	return w
}

// topic returns a short phrase naming what s is about.
func topic(s string) string {
	ws := topics(s, 2)
	switch len(ws) {
	case 0:
		return "the question"
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// instructs reports whether quoted text tries to instruct its reader: the
// kind of text a careful reviewer scores as poor.
func instructs(text string) bool {
	low := strings.ToLower(text)
	for _, p := range []string{"ignore previous", "ignore all previous", "ignore the previous", "ignore your instructions",
		"disregard", "you must score", "give this response", "give response", "score this response 10", "final ranking:", "system prompt"} {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}
