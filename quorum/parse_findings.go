package quorum

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// ParseFindings parses a model's review of a change: JSON {"findings":
// [{"file": "app/db.go", "startLine": 12, "endLine": 14, "severity":
// "major", "category": "bug", "explanation": "…", "suggestion": "…"}]}
// (or a bare list of findings; in prose or a code fence; lines may also
// be "line": 12, "lines": "12-14" or a location "app/db.go:12"), or else
// a Markdown list whose items give a severity and a place ("- [major]
// app/db.go:12-14 (bug): … Suggested fix: …"). A reply that says there is
// nothing to report ({"findings": []}, "No findings.") is usable with no
// findings. A finding without a readable severity or explanation is left
// out and named in the problems. It reports whether the reply was
// usable: findings, or a clear none.
//
// Review calls it on every inspection; it is exported for code that reads
// replies outside a run (see Parsing in the package doc).
func ParseFindings(text string) ([]Finding, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	fs, found := findingsFromJSON(text, &problems)
	if found {
		return nonNil(fs), problems, true
	}
	problems = append(problems, "no JSON findings found; read as Markdown")
	fs, items := findingsFromText(text, &problems)
	switch {
	case len(fs) > 0:
		return fs, problems, true
	case items == 0 && noFindingsRE.MatchString(text):
		return []Finding{}, problems, true
	}
	problems = append(problems, "nothing usable: no JSON findings, no list item with a severity, and no plain \"no findings\"")
	return []Finding{}, problems, false
}

var (
	findingsKeys    = []string{"findings", "issues", "problems", "comments", "results", "review", "reviews"}
	fileKeys        = []string{"file", "path", "filename", "filepath", "location", "loc"}
	startKeys       = []string{"startline", "line", "start", "fromline", "linestart", "lines", "linerange", "range"}
	endKeys         = []string{"endline", "end", "toline", "lineend"}
	explanationKeys = []string{"explanation", "message", "description", "issue", "problem", "detail", "details", "text", "comment", "reason", "body"}
	titleKeys       = []string{"title", "summary", "headline", "name"}
	suggestionKeys  = []string{"suggestion", "fix", "suggestedfix", "recommendation", "remedy", "proposal", "solution", "suggestedchange"}
	categoryKeys    = []string{"category", "type", "kind", "area", "tag", "class"}
)

// findingsFromJSON reads the first JSON value that is a list of findings,
// or an object holding one under a key such as "findings".
func findingsFromJSON(text string, problems *[]string) ([]Finding, bool) {
	for _, v := range jsonValues(text) {
		var list []any
		switch x := v.(type) {
		case map[string]any:
			l, ok := field(x, findingsKeys...)
			if !ok {
				if _, ok := field(x, severityKeys...); !ok {
					continue
				}
				l = []any{x} // a single finding on its own
			}
			if l == nil {
				l = []any{}
			}
			if list, ok = l.([]any); !ok {
				continue
			}
		case []any:
			if !slices.ContainsFunc(x, func(e any) bool {
				o, ok := e.(map[string]any)
				if !ok {
					return false
				}
				_, sev := field(o, severityKeys...)
				_, exp := field(o, explanationKeys...)
				return sev || exp
			}) {
				continue
			}
			list = x
		default:
			continue
		}
		var out []Finding
		for _, e := range list {
			o, ok := e.(map[string]any)
			if !ok || len(out) >= maxItemsParsed {
				continue
			}
			if f, ok := findingFromObject(o, problems); ok {
				out = append(out, f)
			}
		}
		return out, true
	}
	return nil, false
}

func findingFromObject(o map[string]any, problems *[]string) (Finding, bool) {
	var f Finding
	file, _ := field(o, fileKeys...)
	f.File = str(file)
	if path, s, e, ok := location(f.File); ok {
		f.File, f.StartLine, f.EndLine = path, s, e
	}
	if v, ok := field(o, startKeys...); ok {
		f.StartLine, f.EndLine = lineValue(v)
	}
	if v, ok := field(o, endKeys...); ok {
		if e, _ := lineValue(v); e > 0 {
			f.EndLine = e
		}
	}
	f.StartLine, f.EndLine = lineSpan(f.StartLine, f.EndLine)
	expl, _ := field(o, explanationKeys...)
	title, _ := field(o, titleKeys...)
	f.Explanation = cutRunes(strings.Join(strs(expl), " "), maxItemRunes)
	if t := strings.Join(strs(title), " "); t != "" && f.Explanation == "" {
		f.Explanation = cutRunes(t, maxItemRunes)
	} else if t != "" && !strings.Contains(f.Explanation, t) {
		f.Explanation = cutRunes(t+": "+f.Explanation, maxItemRunes)
	}
	sug, _ := field(o, suggestionKeys...)
	f.Suggestion = cutRunes(strings.Join(strs(sug), " "), maxItemRunes)
	cat, _ := field(o, categoryKeys...)
	f.Category = category(str(cat))
	sev, _ := field(o, severityKeys...)
	return f, checkFinding(&f, str(sev), problems)
}

// checkFinding sets a finding's severity from raw and keeps it only with
// a severity and an explanation.
func checkFinding(f *Finding, raw string, problems *[]string) bool {
	where := f.File
	if where == "" {
		where = "the change"
	}
	sev, ok := ParseSeverity(raw)
	switch {
	case strings.TrimSpace(f.Explanation) == "":
		*problems = append(*problems, fmt.Sprintf("a finding on %s says nothing; ignored", cutRunes(where, 60)))
		return false
	case !ok:
		*problems = append(*problems, fmt.Sprintf("a finding on %s has no known severity (%q); ignored: %s", cutRunes(where, 60), cutRunes(raw, 20), cutRunes(f.Explanation, 60)))
		return false
	}
	f.Severity = sev
	return true
}

var (
	rangeRE = regexp.MustCompile(`^\D*?(\d{1,7})(?:\s*(?:-|–|—|to|\.\.|:|,)\s*L?(\d{1,7}))?`)
	// locationRE finds a place in text: a path with a dot or a slash,
	// then ":12", " line 12" or "#L12", and maybe an end line.
	locationRE = regexp.MustCompile("(?i)`?([A-Za-z0-9_][A-Za-z0-9_./@+-]*)`?\\s*(?::|,?\\s+lines?\\s+|#L)\\s*L?(\\d{1,7})(?:\\s*(?:-|–|—|to)\\s*L?(\\d{1,7}))?")
)

// lineValue reads a line or a range from JSON: 12, "12", "12-14", "L12",
// [12, 14].
func lineValue(v any) (int, int) {
	switch x := v.(type) {
	case float64:
		if x >= 1 && x < 1e7 {
			return int(x), int(x)
		}
	case string:
		if m := rangeRE.FindStringSubmatch(x); m != nil {
			s, _ := strconv.Atoi(m[1])
			e, _ := strconv.Atoi(m[2])
			return s, e
		}
	case []any:
		if len(x) > 0 {
			s, _ := lineValue(x[0])
			e := s
			if len(x) > 1 {
				e, _ = lineValue(x[len(x)-1])
			}
			return s, e
		}
	case map[string]any:
		s, _ := field(x, startKeys...)
		e, _ := field(x, endKeys...)
		a, _ := lineValue(s)
		b, _ := lineValue(e)
		return a, b
	}
	return 0, 0
}

// lineSpan orders a line range: an end before the start is swapped, a
// missing end is the start, and a missing start the end.
func lineSpan(s, e int) (int, int) {
	s, e = max(s, 0), max(e, 0)
	switch {
	case s == 0:
		s = e
	case e == 0:
		e = s
	case e < s:
		s, e = e, s
	}
	return s, e
}

// location splits "app/db.go:12-14" into its path and lines.
func location(s string) (string, int, int, bool) {
	m := locationRE.FindStringSubmatch(s)
	if m == nil || !strings.ContainsAny(m[1], "./") {
		return "", 0, 0, false
	}
	a, _ := strconv.Atoi(m[2])
	b, _ := strconv.Atoi(m[3])
	a, b = lineSpan(a, b)
	return strings.TrimRight(m[1], ".:,"), a, b, true
}

// categoryWords fold the categories models write into the usual words.
var categoryWords = map[string]string{
	"bugs": "bug", "correctness": "bug", "logic": "bug", "defect": "bug", "error": "bug", "errorhandling": "reliability",
	"sec": "security", "vulnerability": "security", "perf": "performance", "efficiency": "performance",
	"test": "tests", "testing": "tests", "coverage": "tests", "doc": "docs", "documentation": "docs", "comments": "docs",
	"readability": "maintainability", "design": "maintainability", "naming": "style", "formatting": "style",
	"robustness": "reliability", "concurrency": "reliability", "race": "reliability",
}

// category folds a category to one lower-case word: "Error handling" is
// "errorhandling", then "reliability"; "" is "general".
func category(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' {
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	c := b.String()
	if w, ok := categoryWords[c]; ok {
		return w
	}
	if c == "" {
		return "general"
	}
	return c
}

var (
	// severityMarkRE finds the marks a severity is written in: [major],
	// **major**, (major), or a leading "major:".
	severityMarkRE = regexp.MustCompile(`\[\s*([A-Za-z-]+)\s*\]|\*\*\s*([A-Za-z-]+)\s*:?\s*\*\*|\(\s*([A-Za-z-]+)\s*\)|^\s*([A-Za-z-]+)\s*[:—–]`)
	categoryMarkRE = regexp.MustCompile(`\(\s*([A-Za-z][A-Za-z -]{0,30})\s*\)`)
	suggestionRE   = regexp.MustCompile(`(?i)\b(?:suggested fix|suggestion|fix|recommendation|remedy)\s*:\s*`)
	noFindingsRE   = regexp.MustCompile(`(?i)\b(?:no (?:findings|issues|problems|concerns)|nothing (?:to report|worth reporting|found)|lgtm|looks good to me)\b`)
)

// findingsFromText reads a Markdown list of findings. It returns them and
// how many list items it read.
func findingsFromText(text string, problems *[]string) ([]Finding, int) {
	var items []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			items = append(items, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if m := bulletRE.FindStringSubmatch(line); m != nil {
			flush()
			cur = []string{m[1]}
			continue
		}
		switch t := strings.TrimSpace(line); {
		case t == "":
		case len(cur) > 0 && (line[0] == ' ' || line[0] == '\t'):
			cur = append(cur, t)
		default:
			flush()
		}
	}
	flush()
	var out []Finding
	read := 0
	for _, it := range items {
		if len(out) >= maxItemsParsed {
			break
		}
		sev, rest, ok := severityMark(it)
		if !ok {
			continue
		}
		read++
		var f Finding
		if m := locationRE.FindStringSubmatchIndex(rest); m != nil {
			if path, s, e, ok := location(rest[m[0]:m[1]]); ok {
				f.File, f.StartLine, f.EndLine = path, s, e
				rest = rest[:m[0]] + rest[m[1]:]
			}
		}
		if m := categoryMarkRE.FindStringSubmatchIndex(rest); m != nil {
			f.Category = category(rest[m[2]:m[3]])
			rest = rest[:m[0]] + rest[m[1]:]
		} else {
			f.Category = category("")
		}
		if loc := suggestionRE.FindStringIndex(rest); loc != nil {
			f.Suggestion = cutRunes(oneLine(rest[loc[1]:]), maxItemRunes)
			rest = rest[:loc[0]]
		}
		f.Explanation = cutRunes(strings.Trim(oneLine(rest), " :-–—*_`"), maxItemRunes)
		if checkFinding(&f, sev, problems) {
			out = append(out, f)
		}
	}
	return out, read
}

// severityMark finds an item's severity and returns the item without its
// mark.
func severityMark(it string) (string, string, bool) {
	for _, m := range severityMarkRE.FindAllStringSubmatchIndex(it, 4) {
		for g := 1; g <= 4; g++ {
			if m[2*g] < 0 {
				continue
			}
			word := it[m[2*g]:m[2*g+1]]
			if _, ok := ParseSeverity(word); ok {
				return word, it[:m[0]] + " " + it[m[1]:], true
			}
		}
	}
	return "", "", false
}
