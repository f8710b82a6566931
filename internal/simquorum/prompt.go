package simquorum

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// This file reads quorum's prompts the way a model would. It knows the
// default prompts' layout: the question after a "Question:" (or "Task:")
// line, and quoted texts between "<<<BEGIN NAME nonce>>>" and
// "<<<END NAME nonce>>>" lines.

// block is one quoted text of a prompt.
type block struct {
	kind, label string // "RESPONSE", "A"
	text        string
}

var beginRE = regexp.MustCompile(`(?m)^<<<BEGIN (RESPONSE|PLAN) ([A-Z]+) ([0-9a-f]+)>>>$`)

// blocks returns the quoted answers or plans of a prompt, in order. A
// block ends only at its own END line with the same nonce.
func blocks(prompt string) []block {
	var out []block
	for _, m := range beginRE.FindAllStringSubmatchIndex(prompt, -1) {
		kind, lbl, nonce := prompt[m[2]:m[3]], prompt[m[4]:m[5]], prompt[m[6]:m[7]]
		rest := prompt[m[1]:]
		end := strings.Index(rest, "\n<<<END "+kind+" "+lbl+" "+nonce+">>>")
		if end < 0 {
			continue
		}
		out = append(out, block{kind: kind, label: lbl, text: strings.TrimSpace(rest[:end])})
	}
	return out
}

// subject returns the question or task of a prompt: the text after its
// "Question:" or "Task:" line, up to the next blank line.
func subject(prompt string) string {
	for _, head := range []string{"\nQuestion:\n", "\nTask:\n"} {
		if i := strings.Index(prompt, head); i >= 0 {
			s := prompt[i+len(head):]
			if j := strings.Index(s, "\n\n"); j >= 0 {
				s = s[:j]
			}
			return strings.TrimSpace(s)
		}
	}
	return strings.TrimSpace(prompt)
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
			out = append(out, w)
		}
	}
	return out
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
