package quorum

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ParseVerdict parses a review of the answers labelled labels (as "A",
// "B"). It returns the verdict, the problems met (unknown labels, scores
// out of range, answers left unscored, no JSON found), and whether
// anything usable was found: at least one valid score or ranking entry.
//
// Discuss calls it on every review. Like the other Parse functions, it is
// exported for code that reads replies outside a run (see Parsing in the
// package doc).
func ParseVerdict(text string, labels []string) (Verdict, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	v, found := verdictFromJSON(text, labels, &problems)
	if !found {
		v = verdictFromText(text, labels, &problems)
		if len(v.Assessments) > 0 || len(v.Ranking) > 0 {
			problems = append(problems, "no JSON verdict found; scores and ranking were read from the text")
		}
	}
	return finishVerdict(v, labels, problems)
}

func finishVerdict(v Verdict, labels []string, problems []string) (Verdict, []string, bool) {
	usable := len(v.Ranking) > 0
	scored := make(map[string]bool)
	for _, a := range v.Assessments {
		if a.Score > 0 {
			scored[a.Label] = true
			usable = true
		}
	}
	// Report per label, in label order, what is missing.
	for _, l := range labels {
		if !scored[l] {
			problems = append(problems, "no valid score for Response "+l)
		}
	}
	if len(v.Ranking) > 0 {
		var left []string
		for _, l := range labels {
			if !slices.Contains(v.Ranking, l) {
				left = append(left, "Response "+l)
			}
		}
		if len(left) > 0 {
			problems = append(problems, "ranking leaves out "+strings.Join(left, ", "))
		}
	} else {
		problems = append(problems, "no ranking found")
	}
	if !usable {
		problems = append(problems, "nothing usable: no JSON verdict, no FINAL RANKING list and no N/10 scores")
	}
	if v.Assessments == nil {
		v.Assessments = []Assessment{}
	}
	if v.Ranking == nil {
		v.Ranking = []string{}
	}
	return v, problems, usable
}

// verdictFromJSON interprets the first JSON value that looks like a
// verdict.
func verdictFromJSON(text string, labels []string, problems *[]string) (Verdict, bool) {
	for _, val := range jsonValues(text) {
		var local []string
		if v, ok := interpretVerdict(val, labels, &local); ok {
			*problems = append(*problems, local...)
			return v, true
		}
	}
	return Verdict{}, false
}

var (
	assessmentKeys = []string{"reviews", "verdicts", "assessments", "evaluations", "responses", "scores", "ratings", "answers", "review", "verdict"}
	rankingKeys    = []string{"ranking", "finalranking", "rankings", "rank", "order", "ranked", "bestfirst"}
	labelKeys      = []string{"response", "label", "id", "answer", "name", "letter", "responseid", "responselabel", "candidate"}
	strengthKeys   = []string{"strengths", "strength", "pros", "positives"}
	weaknessKeys   = []string{"weaknesses", "weakness", "cons", "negatives"}
)

func interpretVerdict(val any, labels []string, problems *[]string) (Verdict, bool) {
	var v Verdict
	found := false
	byLabel := make(map[string]int)
	add := func(l string, obj map[string]any, direct any) {
		if _, dup := byLabel[l]; dup {
			*problems = append(*problems, "Response "+l+" is assessed twice; the first assessment is kept")
			return
		}
		a := Assessment{Label: l, Strengths: []string{}, Weaknesses: []string{}}
		var raw any
		var has bool
		if obj != nil {
			raw, has = field(obj, scoreKeys...)
			if s, ok := field(obj, strengthKeys...); ok {
				a.Strengths = strs(s)
			}
			if w, ok := field(obj, weaknessKeys...); ok {
				a.Weaknesses = strs(w)
			}
		} else {
			raw, has = direct, true
		}
		if has {
			if s, ok := score(raw); ok {
				if validScore(s, "Response "+l, problems) {
					a.Score = s
				}
			} else {
				*problems = append(*problems, "the score of Response "+l+" is not a number")
			}
		}
		byLabel[l] = len(v.Assessments)
		v.Assessments = append(v.Assessments, a)
		found = true
	}
	unknown := func(what string) {
		*problems = append(*problems, fmt.Sprintf("%q is not one of the reviewed responses; ignored", cutRunes(what, 40)))
	}
	// readList reads assessments given as a list of objects.
	readList := func(list []any) {
		for _, e := range list {
			obj, ok := e.(map[string]any)
			if !ok {
				continue
			}
			lv, ok := field(obj, labelKeys...)
			if !ok {
				*problems = append(*problems, "an assessment names no response; ignored")
				continue
			}
			if l, ok := labelOf(str(lv), labels); ok {
				add(l, obj, nil)
			} else {
				unknown(str(lv))
			}
		}
	}
	// readMap reads assessments keyed by label: {"A": 7} or {"Response A": {...}}.
	readMap := func(m map[string]any, strict bool) {
		for _, k := range sortedKeys(m) {
			l, ok := labelOf(k, labels)
			if !ok {
				if strict {
					unknown(k)
				}
				continue
			}
			if obj, isObj := m[k].(map[string]any); isObj {
				add(l, obj, nil)
			} else {
				add(l, nil, m[k])
			}
		}
	}
	switch x := val.(type) {
	case []any:
		readList(x)
	case map[string]any:
		if a, ok := field(x, assessmentKeys...); ok {
			switch y := a.(type) {
			case []any:
				readList(y)
			case map[string]any:
				readMap(y, true)
			}
		} else {
			readMap(x, false) // labels as top-level keys
		}
		if r, ok := field(x, rankingKeys...); ok {
			v.Ranking = readRanking(r, labels, problems)
			found = found || len(v.Ranking) > 0
		}
	}
	return v, found
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var rankSplitRE = regexp.MustCompile(`\s*(?:>|,|;|\n|→|->|\|)\s*`)

// readRanking reads a ranking given as a list of labels (or of objects
// naming one) or as a string such as "B > A > C".
func readRanking(v any, labels []string, problems *[]string) []string {
	var items []string
	switch x := v.(type) {
	case string:
		items = rankSplitRE.Split(x, -1)
	case []any:
		for _, e := range x {
			switch y := e.(type) {
			case map[string]any:
				if lv, ok := field(y, labelKeys...); ok {
					items = append(items, str(lv))
				}
			default:
				items = append(items, str(y))
			}
		}
	}
	var out []string
	for _, it := range items {
		it = strings.TrimSpace(numberedPrefixRE.ReplaceAllString(it, ""))
		if it == "" {
			continue
		}
		l, ok := labelOf(it, labels)
		switch {
		case !ok:
			*problems = append(*problems, fmt.Sprintf("ranking entry %q is not one of the reviewed responses; ignored", cutRunes(it, 40)))
		case slices.Contains(out, l):
			*problems = append(*problems, "ranking names Response "+l+" twice; the first place is kept")
		default:
			out = append(out, l)
		}
	}
	return out
}

var (
	numberedPrefixRE = regexp.MustCompile(`^\s*(?:#?\d+[.):]?|[-*•+])\s*`)
	finalRankingRE   = regexp.MustCompile(`(?i)final\s+ranking\s*[:\-–]?`)
	labelMentionRE   = regexp.MustCompile(`\b(?:[Rr]esponse|RESPONSE|[Aa]nswer|ANSWER)[ \t]+([A-Z]{1,2})\b`)
	bareItemRE       = regexp.MustCompile(`^\s*(?:#?\d+[.):]|[-*•+])\s*\**([A-Z]{1,2})\b`)
	outOfTenRE       = regexp.MustCompile(`(?i)(-?\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*10\b`)
)

// verdictFromText reads a prose review: the list after the last "FINAL
// RANKING:", and N/10 scores on lines naming a response (or following a
// line that does).
func verdictFromText(text string, labels []string, problems *[]string) Verdict {
	var v Verdict
	body := text
	if locs := finalRankingRE.FindAllStringIndex(text, -1); len(locs) > 0 {
		last := locs[len(locs)-1]
		body = text[:last[0]]
		v.Ranking = rankingFromText(text[last[1]:], labels, problems)
	}
	scores := make(map[string]float64)
	var order []string
	current := ""
	for _, line := range strings.Split(body, "\n") {
		var named []string
		for _, m := range labelMentionRE.FindAllStringSubmatch(line, -1) {
			if l, ok := labelOf(m[1], labels); ok {
				named = append(named, l)
			}
		}
		found := outOfTenRE.FindAllStringSubmatch(line, -1)
		var nums []float64
		for _, m := range found {
			if n, err := strconv.ParseFloat(m[1], 64); err == nil {
				nums = append(nums, n)
			}
		}
		assign := func(l string, n float64) {
			if _, done := scores[l]; done {
				return
			}
			if validScore(n, "Response "+l, problems) {
				scores[l] = n
				order = append(order, l)
			}
		}
		switch {
		case len(nums) == 0:
		case len(named) == len(nums) && len(named) > 1:
			for i, l := range named {
				assign(l, nums[i])
			}
		case len(named) >= 1:
			assign(named[0], nums[0])
		case current != "":
			assign(current, nums[0])
		}
		if len(named) > 0 {
			current = named[len(named)-1]
		}
	}
	for _, l := range order {
		v.Assessments = append(v.Assessments, Assessment{Label: l, Score: scores[l], Strengths: []string{}, Weaknesses: []string{}})
	}
	return v
}

// rankingFromText reads the list that follows "FINAL RANKING:": numbered or
// bulleted lines naming a response, or one line such as "B > A > C".
func rankingFromText(s string, labels []string, problems *[]string) []string {
	var out []string
	add := func(l string) {
		if slices.Contains(out, l) {
			*problems = append(*problems, "FINAL RANKING names Response "+l+" twice; the first place is kept")
			return
		}
		out = append(out, l)
	}
	lines := strings.Split(s, "\n")
	if first := strings.TrimSpace(lines[0]); first != "" {
		// Inline: "FINAL RANKING: B > A > C".
		for _, part := range rankSplitRE.Split(first, -1) {
			if l, ok := labelOf(part, labels); ok {
				add(l)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	started := false
	for _, line := range lines[1:] {
		t := strings.TrimSpace(line)
		if t == "" {
			if started {
				break
			}
			continue
		}
		var l string
		if m := labelMentionRE.FindStringSubmatch(t); m != nil {
			l = m[1]
		} else if m := bareItemRE.FindStringSubmatch(t); m != nil {
			l = m[1]
		} else if started {
			break // the list has ended
		} else {
			continue
		}
		started = true
		if got, ok := labelOf(l, labels); ok {
			add(got)
		} else {
			*problems = append(*problems, fmt.Sprintf("FINAL RANKING entry %q is not one of the reviewed responses; ignored", cutRunes(t, 40)))
		}
	}
	return out
}
