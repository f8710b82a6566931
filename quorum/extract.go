package quorum

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Limits that keep parsing linear-ish on hostile input: models can return
// anything, and parsing must never be the slow part of a run.
const (
	maxParseBytes    = 256 << 10 // longer replies are parsed in their first 256 KiB
	maxJSONAttempts  = 64        // '{' or '[' positions tried as JSON starts
	maxJSONSpan      = 256 << 10
	maxJSONDepth     = 256
	maxItemsParsed   = 256  // list items kept per list
	maxItemRunes     = 2000 // runes kept per list item
	maxTitleRunes    = 200
	maxReasoningRune = 4000
)

// clip cuts text to the parse limit, noting it in problems.
func clip(text string, problems *[]string) string {
	if len(text) <= maxParseBytes {
		return text
	}
	*problems = append(*problems, fmt.Sprintf("reply is %d bytes; only the first %d were parsed", len(text), maxParseBytes))
	return cutUTF8(text, maxParseBytes)
}

var fenceRE = regexp.MustCompile("(?s)```[a-zA-Z0-9_-]*[ \t]*\r?\n(.*?)```")

// jsonValues returns the JSON values found in text, best candidates first:
// the contents of code fences, then every balanced {…} or […] outside them,
// outermost first, left to right. Values that do not decode are skipped
// (after one repair attempt: trailing commas removed).
func jsonValues(text string) []any {
	var out []any
	for _, m := range fenceRE.FindAllStringSubmatch(text, 8) {
		if v, ok := decodeLoose(strings.TrimSpace(m[1])); ok {
			out = append(out, v)
		}
	}
	attempts := 0
	for i := 0; i < len(text) && attempts < maxJSONAttempts; i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		attempts++
		end := matchBracket(text, i)
		if end < 0 {
			continue
		}
		if v, ok := decodeLoose(text[i : end+1]); ok {
			out = append(out, v)
			i = end // inner values are parts of this one
		}
	}
	return out
}

// jsonObjects returns the JSON objects among jsonValues(text), in the same
// order: the candidates for a vote or a plan, which are objects.
func jsonObjects(text string) []map[string]any {
	var out []map[string]any
	for _, v := range jsonValues(text) {
		if obj, ok := v.(map[string]any); ok {
			out = append(out, obj)
		}
	}
	return out
}

// matchBracket returns the index of the bracket closing the one at start,
// skipping brackets inside JSON strings, or -1. It gives up past
// maxJSONSpan bytes or maxJSONDepth levels: no verdict, vote or plan is
// that large or deep, and the bounds keep hostile input from costing
// 64 × 256 KiB of scanning.
func matchBracket(s string, start int) int {
	var stack []byte
	inStr, esc := false, false
	end := min(len(s), start+maxJSONSpan)
	for i := start; i < end; i++ {
		c := s[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			if len(stack) == maxJSONDepth {
				return -1
			}
			stack = append(stack, c+2) // '{'+2 is '}', '['+2 is ']'

		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i
			}
		}
	}
	return -1
}

var trailingCommaRE = regexp.MustCompile(`,\s*([}\]])`)

func decodeLoose(s string) (any, bool) {
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		return v, true
	}
	if fixed := trailingCommaRE.ReplaceAllString(s, "$1"); fixed != s && json.Unmarshal([]byte(fixed), &v) == nil {
		return v, true
	}
	return nil, false
}

// normKey folds a JSON key for matching: "Final_Ranking" → "finalranking".
func normKey(k string) string {
	var b strings.Builder
	for _, r := range k {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// field returns the value of the first key of obj that folds to one of
// names.
func field(obj map[string]any, names ...string) (any, bool) {
	for _, n := range names {
		for k, v := range obj {
			if normKey(k) == n {
				return v, true
			}
		}
	}
	return nil, false
}

var scoreTextRE = regexp.MustCompile(`(?i)(-?\d+(?:\.\d+)?)\s*(?:/\s*(\d+(?:\.\d+)?)|out\s+of\s+(\d+(?:\.\d+)?))?`)

// score reads a score from a JSON value: a number, or a string such as
// "7", "7/10", "7.5 out of 10". It reports whether a number was found; the
// range is checked by the caller.
func score(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case string:
		m := scoreTextRE.FindStringSubmatch(x)
		if m == nil {
			return 0, false
		}
		n, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return 0, false
		}
		if d := m[2] + m[3]; d != "" && d != "10" {
			// "4/5": rescale to 10 rather than misread it.
			if den, err := strconv.ParseFloat(d, 64); err == nil && den > 0 {
				n = n * 10 / den
			}
		}
		return n, true
	case map[string]any:
		if s, ok := field(x, "score", "value", "rating"); ok {
			return score(s)
		}
	}
	return 0, false
}

// validScore checks a score's range, noting a problem when it is outside.
func validScore(s float64, what string, problems *[]string) bool {
	if s >= 1 && s <= 10 {
		return true
	}
	*problems = append(*problems, fmt.Sprintf("score %s for %s is outside 1–10; ignored", strconv.FormatFloat(s, 'f', -1, 64), what))
	return false
}

// strs reads a list of strings from a JSON value: an array (of strings, or
// of objects whose text fields are joined) or a single string.
func strs(v any) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && len(out) < maxItemsParsed {
			out = append(out, cutRunes(s, maxItemRunes))
		}
	}
	switch x := v.(type) {
	case string:
		add(x)
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case string:
				add(y)
			case float64:
				add(strconv.FormatFloat(y, 'f', -1, 64))
			case map[string]any:
				add(objectText(y))
			}
		}
	case map[string]any:
		add(objectText(x))
	}
	return out
}

// objectText renders a step or risk given as an object: its title-like
// field, then its description-like fields, then what an agent's step adds
// (its files and check) and a risk's mitigation, each labelled.
func objectText(o map[string]any) string {
	var parts []string
	for _, names := range [][]string{
		{"title", "name", "goal", "step", "risk", "action", "summary"},
		{"description", "details", "detail", "text", "content"},
		{"files", "file", "paths"},
		{"check", "verify", "verification"},
		{"mitigation", "mitigations"},
	} {
		v, ok := field(o, names...)
		if !ok {
			continue
		}
		s, _ := v.(string)
		if list, isList := v.([]any); isList {
			s = strings.Join(strs(list), ", ")
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		switch names[0] {
		case "files", "check", "mitigation":
			s = names[0] + ": " + s
		}
		parts = append(parts, strings.TrimSpace(s))
	}
	return strings.Join(parts, " — ")
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func cutRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}

// labelOf reads an answer or plan label from text such as "A", "Response
// A", "response_a", "(B)", "**Plan C**", and returns it if it is one of
// labels.
func labelOf(s string, labels []string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.Trim(s, "*_`\"'()[]{}<>:.,#- \t")
	low := strings.ToLower(s)
	for _, prefix := range []string{"response", "answer", "plan", "candidate", "resp"} {
		if strings.HasPrefix(low, prefix) {
			s = s[len(prefix):]
			break
		}
	}
	s = strings.Trim(s, "*_`\"'()[]{}<>:.,#- \t")
	for _, l := range labels {
		if strings.EqualFold(s, l) {
			return l, true
		}
	}
	return "", false
}
