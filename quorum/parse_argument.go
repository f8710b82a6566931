package quorum

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// maxArgumentRunes bounds a debater's argument: a few paragraphs were
// asked for, and the argument is quoted in every later prompt.
const maxArgumentRunes = 8000

// ParseArgument parses a debater's reply: JSON {"argument": "…",
// "answers": [{"objection": "O1", "answer": "…"}], "rulings":
// [{"objection": "O1", "status": "answered", "reason": "…"}],
// "objections": [{"severity": "blocking", "text": "…"}]} (an
// ArgumentReply; in prose or a code fence; lists may also be maps keyed by objection id or by
// severity), or else Markdown: sections named Argument, Answers, Rulings
// and Objections, or list items anywhere that read as an answer ("O2: …"),
// a ruling ("O2: withdrawn — …") or an objection ("[blocking] …",
// "major: …"); the rest of the text is the argument. Objection ids may be
// written "O2", "objection 2" or "2"; statuses and severities in other
// words (resolved, retracted; critical, low). Items that cannot be read
// are left out and named in the problems. It reports whether anything
// was found.
//
// Debate calls it on every turn; it is exported for code that reads
// replies outside a run (see Parsing in the package doc).
func ParseArgument(text string) (Argument, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	a, found := argumentFromJSON(text, &problems)
	if !found {
		a = argumentFromText(text, &problems)
	}
	a.Argument = cutRunes(strings.TrimSpace(a.Argument), maxArgumentRunes)
	a.Answers = dedupe(a.Answers, func(r Rebuttal) string { return r.Objection }, "answers", &problems)
	a.Rulings = dedupe(a.Rulings, func(r Ruling) string { return r.Objection }, "rulings", &problems)
	ok := a.Argument != "" || len(a.Answers)+len(a.Rulings)+len(a.Objections) > 0
	if !ok {
		problems = append(problems, "nothing usable: no argument, answer, ruling or objection")
	}
	return a, problems, ok
}

var (
	argumentKeys  = []string{"argument", "case", "statement", "position", "opening", "rebuttal", "reply", "text", "summary"}
	answersKeys   = []string{"answers", "rebuttals", "responses", "replies", "answerstoobjections"}
	rulingsKeys   = []string{"rulings", "statuses", "decisions", "rulingsonobjections", "objectionstatuses"}
	objectionKeys = []string{"objections", "newobjections", "concerns", "raised"}
	idKeys        = []string{"objection", "id", "objectionid", "ref", "to", "about"}
	answerKeys    = []string{"answer", "text", "rebuttal", "response", "reply", "content"}
	statusKeys    = []string{"status", "ruling", "decision", "verdict", "state"}
	reasonKeys    = []string{"reason", "why", "because", "rationale", "explanation", "comment"}
	severityKeys  = []string{"severity", "level", "weight", "priority", "impact"}
	objTextKeys   = []string{"text", "objection", "description", "detail", "summary", "title", "concern", "issue"}
)

// argumentFromJSON interprets the first JSON object that has a key of an
// argument.
func argumentFromJSON(text string, problems *[]string) (Argument, bool) {
	for _, obj := range jsonObjects(text) {
		arg, hasArg := field(obj, argumentKeys...)
		ans, hasAns := field(obj, answersKeys...)
		rul, hasRul := field(obj, rulingsKeys...)
		objs, hasObj := field(obj, objectionKeys...)
		if !hasArg && !hasAns && !hasRul && !hasObj {
			continue
		}
		a := Argument{Argument: strings.Join(strs(arg), "\n\n")}
		if hasArg && a.Argument == "" {
			*problems = append(*problems, "the argument is empty")
		}
		if hasAns {
			a.Answers = readEntries(ans, problems, "an answer", func(id string, v any) (Rebuttal, bool) {
				t := entryText(v, answerKeys)
				if t == "" {
					*problems = append(*problems, "the answer to "+id+" is empty; ignored")
					return Rebuttal{}, false
				}
				return Rebuttal{Objection: id, Text: t}, true
			}, parseAnswerItem)
		}
		if hasRul {
			a.Rulings = readRulings(rul, problems)
		}
		if hasObj {
			a.Objections = readObjections(objs, problems)
		}
		return a, true
	}
	return Argument{}, false
}

// readEntries reads a list of entries about objections: a list of objects
// naming the objection, a map keyed by objection id, or a list of strings
// such as "O1: …" (read by item).
func readEntries[T any](v any, problems *[]string, what string, entry func(id string, v any) (T, bool), item func(string) (T, bool)) []T {
	var out []T
	add := func(id string, v any) {
		if len(out) >= maxItemsParsed {
			return
		}
		oid, ok := objectionID(id)
		if !ok {
			*problems = append(*problems, fmt.Sprintf("%s names no objection id (%q); ignored", what, cutRunes(id, 40)))
			return
		}
		if e, ok := entry(oid, v); ok {
			out = append(out, e)
		}
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case map[string]any:
				id, _ := field(y, idKeys...)
				add(str(id), y)
			case string:
				if e, ok := item(y); ok && len(out) < maxItemsParsed {
					out = append(out, e)
				} else if !ok {
					*problems = append(*problems, fmt.Sprintf("%s could not be read (%q); ignored", what, cutRunes(y, 40)))
				}
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			add(k, x[k])
		}
	}
	return out
}

// readRulings reads rulings: objects with a status and a reason, a map
// from objection id to status (or to such an object), or strings such as
// "O1: withdrawn".
func readRulings(v any, problems *[]string) []Ruling {
	return readEntries(v, problems, "a ruling", func(id string, v any) (Ruling, bool) {
		raw, reason := v, ""
		if o, ok := v.(map[string]any); ok {
			raw, _ = field(o, statusKeys...)
			if r, ok := field(o, reasonKeys...); ok {
				reason = cutRunes(str(r), maxItemRunes)
			}
		}
		st, ok := parseStatus(str(raw))
		if !ok {
			*problems = append(*problems, fmt.Sprintf("the ruling on %s has no known status (%q); ignored", id, cutRunes(str(raw), 40)))
		}
		return Ruling{Objection: id, Status: st, Reason: reason}, ok
	}, parseRulingLine)
}

// entryText is the text of an entry given as a string or as an object.
func entryText(v any, keys []string) string {
	if o, ok := v.(map[string]any); ok {
		v, _ = field(o, keys...)
	}
	return cutRunes(strings.Join(strs(v), " "), maxItemRunes)
}

// readObjections reads raised objections: a list of objects or of strings
// ("[blocking] …"), or a map from severity to texts.
func readObjections(v any, problems *[]string) []RaisedObjection {
	var out []RaisedObjection
	add := func(sevRaw any, text string) {
		text = cutRunes(strings.TrimSpace(text), maxItemRunes)
		if text == "" || len(out) >= maxItemsParsed {
			return
		}
		sev, ok := ParseSeverity(str(sevRaw))
		if !ok {
			*problems = append(*problems, fmt.Sprintf("an objection has no known severity (%q); ignored: %s", cutRunes(str(sevRaw), 20), cutRunes(text, 60)))
			return
		}
		out = append(out, RaisedObjection{Severity: sev, Text: text})
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case map[string]any:
				sev, _ := field(y, severityKeys...)
				t, _ := field(y, objTextKeys...)
				add(sev, strings.Join(strs(t), " "))
			case string:
				if o, ok := parseObjectionItem(y); ok {
					out = append(out, o)
				} else {
					*problems = append(*problems, fmt.Sprintf("an objection has no known severity; ignored: %s", cutRunes(y, 60)))
				}
			}
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			for _, t := range strs(x[k]) {
				add(k, t)
			}
		}
	}
	return out
}

// argumentSections name the Markdown sections of a debater's reply.
var argumentSections = map[string]string{
	"argument": "argument", "myargument": "argument", "case": "argument", "mycase": "argument", "opening": "argument",
	"openingstatement": "argument", "rebuttal": "argument", "position": "argument",
	"answers": "answers", "rebuttals": "answers", "answerstoobjections": "answers", "responses": "answers",
	"rulings": "rulings", "myrulings": "rulings", "rulingsonobjections": "rulings", "rulingsonmyobjections": "rulings", "statuses": "rulings",
	"objections": "objections", "newobjections": "objections", "myobjections": "objections", "concerns": "objections",
}

// argumentFromText reads a Markdown reply: its sections if it has any,
// else list items that read as answers, rulings or objections, the rest
// being the argument.
func argumentFromText(text string, problems *[]string) Argument {
	*problems = append(*problems, "no JSON reply found; read as Markdown")
	var a Argument
	secs, pre, heads := textSections(text, argumentSections)
	if len(heads) == 0 {
		var rest []string
		for _, line := range strings.Split(text, "\n") {
			if m := bulletRE.FindStringSubmatch(line); m != nil && len(a.Answers)+len(a.Rulings)+len(a.Objections) < maxItemsParsed {
				if ru, ok := parseRulingItem(m[1]); ok {
					a.Rulings = append(a.Rulings, ru)
					continue
				}
				if an, ok := parseAnswerItem(m[1]); ok {
					a.Answers = append(a.Answers, an)
					continue
				}
				if ob, ok := parseObjectionItem(m[1]); ok {
					a.Objections = append(a.Objections, ob)
					continue
				}
			}
			rest = append(rest, line)
		}
		a.Argument = paragraph(rest)
		if len(a.Answers)+len(a.Rulings)+len(a.Objections) == 0 {
			*problems = append(*problems, "no sections found; the whole text is kept as the argument")
		}
		return a
	}
	a.Argument = paragraph(secs["argument"])
	if a.Argument == "" {
		a.Argument = paragraph(pre)
	}
	for _, it := range listItems(secs["answers"]) {
		if an, ok := parseAnswerItem(it); ok {
			a.Answers = append(a.Answers, an)
		} else {
			*problems = append(*problems, fmt.Sprintf("an answer names no objection id; ignored: %s", cutRunes(it, 60)))
		}
	}
	for _, it := range listItems(secs["rulings"]) {
		if ru, ok := parseRulingLine(it); ok {
			a.Rulings = append(a.Rulings, ru)
		} else {
			*problems = append(*problems, fmt.Sprintf("a ruling could not be read (an objection id and answered, withdrawn or standing); ignored: %s", cutRunes(it, 60)))
		}
	}
	for _, it := range listItems(secs["objections"]) {
		if ob, ok := parseObjectionItem(it); ok {
			a.Objections = append(a.Objections, ob)
		} else {
			*problems = append(*problems, fmt.Sprintf("an objection has no known severity; ignored: %s", cutRunes(it, 60)))
		}
	}
	return a
}

var (
	objectionIDRE = regexp.MustCompile(`(?i)^[\s*_#\[(\x60"']*(?:objection|obj|o)?\s*#?\s*0*(\d{1,4})[\s*_\])\x60"'.:]*$`)
	// idLeadRE matches an item that starts with an objection id, and what
	// follows its separator.
	idLeadRE = regexp.MustCompile(`(?i)^[\s*_\[(\x60]*(?:to\s+|re:?\s+)?((?:objection\s*#?\s*|o)0*\d{1,4})[\s*_\])\x60]*\s*(?:[:.\-–—]\s*)?(.*)$`)
	// severityLeadRE matches an item that starts with a severity word,
	// bracketed, bold or before a colon or dash.
	severityLeadRE = regexp.MustCompile(`^\s*(?:\[\s*([A-Za-z-]+)\s*\]|\(\s*([A-Za-z-]+)\s*\)|\*\*\s*([A-Za-z-]+)\s*:?\s*\*\*|__\s*([A-Za-z-]+)\s*:?\s*__|([A-Za-z-]+)\s*[:—–-])\s*[:—–-]?\s*(.+)$`)
	statusLeadRE   = regexp.MustCompile(`^[\s*_(\[]*([A-Za-z]+(?:[ -][A-Za-z]+)?)[\s*_)\]]*(?:[:.,;\-–—]\s*(.*))?$`)
)

// objectionID reads an objection id ("O2", "objection 2", "2") as "O2".
func objectionID(s string) (string, bool) {
	m := objectionIDRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return "", false
	}
	return "O" + strconv.Itoa(n), true
}

// parseAnswerItem reads "O2: the answer".
func parseAnswerItem(s string) (Rebuttal, bool) {
	m := idLeadRE.FindStringSubmatch(s)
	if m == nil {
		return Rebuttal{}, false
	}
	id, ok := objectionID(m[1])
	text := strings.TrimSpace(m[2])
	if !ok || text == "" {
		return Rebuttal{}, false
	}
	return Rebuttal{Objection: id, Text: cutRunes(text, maxItemRunes)}, true
}

// parseRulingItem reads "O2: withdrawn — the reason" or "O2 (answered)":
// the status is the first clause. Outside a Rulings section, where an item
// may as well be an answer ("O2: resolved by sharding"), that is all it
// reads.
func parseRulingItem(s string) (Ruling, bool) {
	m := idLeadRE.FindStringSubmatch(s)
	if m == nil {
		return Ruling{}, false
	}
	id, ok := objectionID(m[1])
	if !ok {
		return Ruling{}, false
	}
	sm := statusLeadRE.FindStringSubmatch(m[2])
	if sm == nil {
		return Ruling{}, false
	}
	st, ok := parseStatus(sm[1])
	if !ok {
		return Ruling{}, false
	}
	return Ruling{Objection: id, Status: st, Reason: cutRunes(strings.TrimSpace(sm[2]), maxItemRunes)}, true
}

// parseRulingLine reads an item of a Rulings section, where the status
// may also be the first word of a sentence ("O2 stands because …").
func parseRulingLine(s string) (Ruling, bool) {
	if ru, ok := parseRulingItem(s); ok {
		return ru, true
	}
	m := idLeadRE.FindStringSubmatch(s)
	if m == nil {
		return Ruling{}, false
	}
	id, ok := objectionID(m[1])
	words := strings.Fields(strings.Trim(m[2], "*_()[] "))
	if !ok || len(words) == 0 {
		return Ruling{}, false
	}
	st, ok := parseStatus(strings.Trim(words[0], "*_()[].,;:"))
	if !ok {
		return Ruling{}, false
	}
	return Ruling{Objection: id, Status: st, Reason: cutRunes(strings.Join(words[1:], " "), maxItemRunes)}, true
}

// parseObjectionItem reads "[blocking] the objection" or "major: …".
func parseObjectionItem(s string) (RaisedObjection, bool) {
	m := severityLeadRE.FindStringSubmatch(s)
	if m == nil {
		return RaisedObjection{}, false
	}
	sev, ok := ParseSeverity(m[1] + m[2] + m[3] + m[4] + m[5])
	text := strings.TrimSpace(m[6])
	if !ok || text == "" {
		return RaisedObjection{}, false
	}
	return RaisedObjection{Severity: sev, Text: cutRunes(text, maxItemRunes)}, true
}

// statusWords map the words models use for a ruling to a status.
var statusWords = map[string]ObjectionStatus{
	"answered": StatusAnswered, "answer": StatusAnswered, "resolved": StatusAnswered, "addressed": StatusAnswered,
	"settled": StatusAnswered, "satisfied": StatusAnswered, "met": StatusAnswered, "closed": StatusAnswered,
	"accepted": StatusAnswered, "rebutted": StatusAnswered, "refuted": StatusAnswered,
	"withdrawn": StatusWithdrawn, "withdraw": StatusWithdrawn, "retracted": StatusWithdrawn, "retract": StatusWithdrawn,
	"dropped": StatusWithdrawn, "conceded": StatusWithdrawn, "abandoned": StatusWithdrawn,
	"standing": StatusStanding, "stands": StatusStanding, "stand": StatusStanding, "stillstands": StatusStanding,
	"stillstanding": StatusStanding, "maintained": StatusStanding, "open": StatusStanding, "unresolved": StatusStanding,
	"unanswered": StatusStanding, "notanswered": StatusStanding, "rejected": StatusStanding, "holds": StatusStanding,
	"upheld": StatusStanding, "insufficient": StatusStanding, "partiallyanswered": StatusStanding, "pending": StatusStanding,
}

// parseStatus reads a ruling's status.
func parseStatus(s string) (ObjectionStatus, bool) {
	st, ok := statusWords[normKey(s)]
	if !ok {
		if f := strings.Fields(s); len(f) > 0 {
			st, ok = statusWords[normKey(f[0])]
		}
	}
	return st, ok
}

// dedupe keeps the first entry per objection, noting the others.
func dedupe[T any](xs []T, key func(T) string, what string, problems *[]string) []T {
	seen := map[string]bool{}
	var out []T
	for _, x := range xs {
		k := key(x)
		if seen[k] {
			*problems = append(*problems, fmt.Sprintf("%s gets two %s; the first is kept", k, what))
			continue
		}
		seen[k] = true
		out = append(out, x)
	}
	return out
}
