package simquorum

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/quorum"
)

// This file makes simulated code reviewers. They read the change quoted
// in a review prompt, numbered as quorum numbers it, and report what a
// linter with opinions would: hard-coded credentials and SQL built by
// concatenation (blocking), discarded errors and panics (major), TODOs and
// long lines (minor), text in the change addressed to its reviewers
// (blocking), and now and then a missing test. Each model misses some
// non-blocking findings, points a line or two off, or rates a finding
// one step higher, so merging has agreement to count; and each writes in
// its style (see styleOf), the Markdown one sometimes with an item that
// has no severity.

var (
	fileHeadRE = regexp.MustCompile(`^File: (\S+) \(`)
	addedRE    = regexp.MustCompile(`^\s*(\d+) \+ (.*)$`)
)

// addedLine is a line the change adds.
type addedLine struct {
	file string
	num  int
	text string
}

// added returns the lines the change quoted in a prompt adds.
func added(prompt string) []addedLine {
	var out []addedLine
	for _, b := range blocksOf(prompt, "DIFF") {
		file := ""
		for _, line := range strings.Split(b.text, "\n") {
			if m := fileHeadRE.FindStringSubmatch(line); m != nil {
				file = m[1]
				continue
			}
			if m := addedRE.FindStringSubmatch(line); m != nil && file != "" {
				var n int
				fmt.Sscan(m[1], &n)
				out = append(out, addedLine{file, n, m[2]})
			}
		}
	}
	return out
}

// check is what a simulated reviewer looks for in an added line.
type check struct {
	re                      *regexp.Regexp
	severity                quorum.Severity
	category                string
	explanation, suggestion string
}

var checks = []check{
	{regexp.MustCompile(`(?i)(password|passwd|secret|api_?key|token)\w*\s*:?=\s*"[^"]+"`), quorum.SeverityBlocking, "security",
		"A credential is hard-coded in the source; anyone who can read the repository can use it.", "Read it from the environment or a secret store, and rotate the exposed one."},
	{regexp.MustCompile(`(?i)"(select|insert|update|delete)\b[^"]*"\s*\+`), quorum.SeverityBlocking, "security",
		"The SQL statement is built by concatenating input, which allows SQL injection.", "Use a parameterised query (placeholders and arguments)."},
	{regexp.MustCompile(`^\s*_(\s*,\s*_)?\s*=\s*[\w.]+\(|,\s*_\s*:?=\s*[\w.]+\(`), quorum.SeverityMajor, "reliability",
		"The error returned here is discarded, so a failure goes unnoticed.", "Handle the error, or return it to the caller with context."},
	{regexp.MustCompile(`\bpanic\(`), quorum.SeverityMajor, "reliability",
		"The code panics on a condition a caller could recover from.", "Return an error instead of panicking."},
	{regexp.MustCompile(`(?i)\b(TODO|FIXME|XXX)\b`), quorum.SeverityMinor, "maintainability",
		"A TODO is left in the change; it will be forgotten once merged.", "Do it now, or track it in an issue and link it."},
}

// Inspection reviews the change quoted in a review prompt: see the file
// comment. A change with nothing to report gets an explicit none.
func Inspection(t sim.Turn) sim.Response {
	lines := added(t.Prompt)
	var fs []quorum.Finding
	for _, l := range lines {
		h := hash(t.Model, l.file, fmt.Sprint(l.num))
		if instructs(l.text) {
			fs = append(fs, quorum.Finding{File: l.file, StartLine: l.num, EndLine: l.num, Severity: quorum.SeverityBlocking, Category: "security",
				Explanation: "The change contains text addressed to its reviewers, asking them to approve it or ignore their instructions.",
				Suggestion:  "Remove the text; a change should not instruct its reviewers."})
			continue
		}
		for _, c := range checks {
			if !c.re.MatchString(l.text) {
				continue
			}
			if c.severity != quorum.SeverityBlocking && h%3 == 0 {
				continue // missed, as any reviewer misses things
			}
			f := quorum.Finding{File: l.file, StartLine: l.num, EndLine: l.num, Severity: c.severity, Category: c.category, Explanation: c.explanation, Suggestion: c.suggestion}
			if h%4 == 1 {
				f.StartLine = max(l.num-1, 1) // the statement, not just its line
			}
			if c.severity == quorum.SeverityMajor && h%5 == 2 {
				f.Severity = quorum.SeverityBlocking
			}
			fs = append(fs, f)
			break
		}
		if len([]rune(l.text)) > 110 && h%2 == 0 {
			fs = append(fs, quorum.Finding{File: l.file, StartLine: l.num, EndLine: l.num, Severity: quorum.SeverityMinor, Category: "style",
				Explanation: "The line is too long to read comfortably.", Suggestion: "Break it up."})
		}
	}
	if len(lines) > 0 && hash(t.Model, "tests")%2 == 0 {
		first := lines[0]
		fs = append(fs, quorum.Finding{File: first.file, StartLine: first.num, EndLine: first.num, Severity: quorum.SeverityMinor, Category: "tests",
			Explanation: fmt.Sprintf("No test covers the new code in %s.", first.file), Suggestion: "Add a test for the new behaviour."})
	}
	return reply(prefix(t.Model) + writeFindings(styleOf(t.Model), hash(t.Model, t.Prompt), fs))
}

// writeFindings writes findings in a style.
func writeFindings(st style, h uint64, fs []quorum.Finding) string {
	switch st {
	case styleFenced:
		var b strings.Builder
		b.WriteString("I went through the change.\n```json\n{\"findings\": [\n")
		for _, f := range fs {
			fmt.Fprintf(&b, "  {\"path\": %s, \"lines\": \"%d-%d\", \"level\": %s, \"type\": %s, \"message\": %s, \"fix\": %s},\n",
				jsonString(f.File), f.StartLine, f.EndLine, jsonString(otherWords[string(f.Severity)]), jsonString(f.Category), jsonString(f.Explanation), jsonString(f.Suggestion))
		}
		b.WriteString("]}\n```")
		return b.String()
	case styleMarkdown:
		if len(fs) == 0 {
			return "No findings: the change looks good to me."
		}
		var b strings.Builder
		b.WriteString("Findings:\n\n")
		for _, f := range fs {
			fmt.Fprintf(&b, "- [%s] `%s:%d-%d` (%s): %s\n  Suggested fix: %s\n", f.Severity, f.File, f.StartLine, f.EndLine, f.Category, f.Explanation, f.Suggestion)
		}
		if h%3 == 0 {
			fmt.Fprintf(&b, "- `%s:%d`: consider a clearer name here.\n", fs[0].File, fs[0].StartLine)
		}
		return b.String()
	}
	// quorum.Finding's JSON is the shape the inspection prompt asks for.
	v := struct {
		Findings []quorum.Finding `json:"findings"`
	}{Findings: append([]quorum.Finding{}, fs...)}
	j, _ := json.Marshal(v)
	return "\n" + string(j)
}
