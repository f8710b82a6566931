package quorum

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The parsers below read what models write: JSON as asked, JSON wrapped in
// prose or a code fence, or prose with a FINAL RANKING list and N/10
// scores. They never invent a value: what cannot be read is reported as a
// problem and left zero. They never panic, on any input, and take time
// roughly linear in the input (which is cut at 256 KiB).

// ParseVerdict parses a review of the answers labelled labels (as "A",
// "B"). It returns the verdict, the problems met (unknown labels, scores
// out of range, answers left unscored, no JSON found), and whether
// anything usable was found: at least one valid score or ranking entry.
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
	scoreKeys      = []string{"score", "rating", "grade", "points", "mark"}
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

// ParseBallot parses a vote: JSON {"score": 1–10, "reasoning": "…"} (in
// prose or a code fence), or else a "Score: N" or "N/10" in the text. It
// returns the ballot, the problems met, and whether a valid score was
// found.
func ParseBallot(text string) (Ballot, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	for _, val := range jsonValues(text) {
		obj, ok := val.(map[string]any)
		if !ok {
			continue
		}
		raw, ok := field(obj, scoreKeys...)
		if !ok {
			continue
		}
		var b Ballot
		if r, ok := field(obj, "reasoning", "reason", "rationale", "explanation", "justification", "comment", "comments"); ok {
			b.Reasoning = cutRunes(str(r), maxReasoningRune)
		}
		s, ok := score(raw)
		if !ok {
			problems = append(problems, "the vote's score is not a number")
			return b, problems, false
		}
		if !validScore(s, "the plan", &problems) {
			return b, problems, false
		}
		b.Score = s
		return b, problems, true
	}
	problems = append(problems, "no JSON vote found")
	m := voteScoreRE.FindStringSubmatch(text)
	if m == nil {
		problems = append(problems, "no score found in the text either")
		return Ballot{}, problems, false
	}
	n, err := strconv.ParseFloat(m[1]+m[2], 64)
	if err != nil {
		problems = append(problems, "no score found in the text either")
		return Ballot{}, problems, false
	}
	b := Ballot{Reasoning: cutRunes(strings.TrimSpace(text), maxReasoningRune)}
	if !validScore(n, "the plan", &problems) {
		return b, problems, false
	}
	problems = append(problems, "score read from the text")
	b.Score = n
	return b, problems, true
}

var voteScoreRE = regexp.MustCompile(`(?i)(?:\bscore\b[^0-9\n-]{0,12}(-?\d+(?:\.\d+)?))|(?:(-?\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*10\b)`)

// ParsePlan parses a proposed plan: JSON {"title", "steps": […], "risks":
// […]} (in prose, a code fence, or under a "plan" key), or else Markdown
// with a heading or "Title:" line, numbered steps and a Risks section. It
// reports whether at least one step was found.
func ParsePlan(text string) (PlanSpec, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	for _, val := range jsonValues(text) {
		obj, ok := val.(map[string]any)
		if !ok {
			continue
		}
		if inner, ok := field(obj, "plan"); ok {
			if o, ok := inner.(map[string]any); ok {
				obj = o
			}
		}
		st, ok := field(obj, "steps", "step", "actions", "tasks", "phases")
		if !ok {
			continue
		}
		p := PlanSpec{Steps: strs(st), Risks: []string{}}
		if t, ok := field(obj, "title", "name", "summary", "goal"); ok {
			p.Title = cutRunes(str(t), maxTitleRunes)
		}
		if r, ok := field(obj, "risks", "risk", "pitfalls", "concerns"); ok {
			p.Risks = strs(r)
		} else {
			problems = append(problems, "the plan lists no risks")
		}
		if p.Title == "" {
			problems = append(problems, "the plan has no title")
		}
		if len(p.Steps) == 0 {
			problems = append(problems, "the plan has no steps")
			return p, problems, false
		}
		return p, problems, true
	}
	problems = append(problems, "no JSON plan found; read as Markdown")
	p := planFromText(text, &problems)
	return p, problems, len(p.Steps) > 0
}

var (
	titleLineRE = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*title\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.+?)\s*(?:\*\*)?\s*$`)
	headingRE   = regexp.MustCompile(`^\s*#{1,6}\s+(.+?)\s*#*\s*$`)
	risksHeadRE = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*(?:key\s+)?risks?(?:\s+and\s+mitigations?)?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$`)
	stepsHeadRE = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*(?:ordered\s+)?steps?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$`)
	numItemRE   = regexp.MustCompile(`^\s*\d+[.)]\s+(.+)$`)
	bulletRE    = regexp.MustCompile(`^\s*(?:[-*•+]|\d+[.)])\s+(.+)$`)
)

func planFromText(text string, problems *[]string) PlanSpec {
	p := PlanSpec{Steps: []string{}, Risks: []string{}}
	inRisks := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			continue
		case risksHeadRE.MatchString(t):
			inRisks = true
			continue
		case stepsHeadRE.MatchString(t):
			inRisks = false
			continue
		}
		if p.Title == "" {
			if m := titleLineRE.FindStringSubmatch(t); m != nil {
				p.Title = cutRunes(m[1], maxTitleRunes)
				continue
			}
			if m := headingRE.FindStringSubmatch(t); m != nil {
				p.Title = cutRunes(strings.Trim(m[1], "* "), maxTitleRunes)
				continue
			}
		}
		if inRisks {
			if m := bulletRE.FindStringSubmatch(t); m != nil && len(p.Risks) < maxItemsParsed {
				p.Risks = append(p.Risks, cutRunes(m[1], maxItemRunes))
			}
			continue
		}
		if m := numItemRE.FindStringSubmatch(t); m != nil && len(p.Steps) < maxItemsParsed {
			p.Steps = append(p.Steps, cutRunes(m[1], maxItemRunes))
		}
	}
	if p.Title == "" {
		*problems = append(*problems, "the plan has no title")
	}
	if len(p.Steps) == 0 {
		*problems = append(*problems, "no numbered steps found")
	}
	return p
}

// ParseSynthesis splits a synthesis into its sections: Conclusion, Key
// points, Consensus and Disagreements, as Markdown headings ("## Key
// points"), bold lines ("**Consensus**") or labels ("Disagreements:").
// List sections become their items ("None." items are dropped, so an empty
// list means none). When no Conclusion section is found, the whole text is
// kept as the conclusion. It reports the problems met.
func ParseSynthesis(text string) (Sections, []string) {
	var problems []string
	text = clip(text, &problems)
	const (
		none = iota
		conclusion
		keyPoints
		consensus
		disagreements
	)
	names := map[int]string{conclusion: "Conclusion", keyPoints: "Key points", consensus: "Consensus", disagreements: "Disagreements"}
	bodies := make(map[int][]string)
	seen := make(map[int]bool)
	cur := none
	for _, line := range strings.Split(text, "\n") {
		if sec, rest, ok := sectionHeading(line); ok {
			if seen[sec] {
				problems = append(problems, "the "+names[sec]+" section appears twice; both are kept")
			}
			cur, seen[sec] = sec, true
			if rest != "" {
				bodies[cur] = append(bodies[cur], rest)
			}
			continue
		}
		if cur != none {
			bodies[cur] = append(bodies[cur], line)
		}
	}
	s := Sections{
		Conclusion:    strings.TrimSpace(strings.Join(bodies[conclusion], "\n")),
		KeyPoints:     listItems(bodies[keyPoints]),
		Consensus:     listItems(bodies[consensus]),
		Disagreements: listItems(bodies[disagreements]),
	}
	if s.Conclusion == "" {
		s.Conclusion = strings.TrimSpace(text)
		problems = append(problems, "no Conclusion section found; the whole text is kept as the conclusion")
	}
	for _, sec := range []int{keyPoints, consensus, disagreements} {
		if !seen[sec] {
			problems = append(problems, "no "+names[sec]+" section found")
		}
	}
	return s, problems
}

var sectionRE = regexp.MustCompile(`(?i)^\s*(#{1,6}\s*)?(\*\*|__)?\s*(conclusions?|key\s+points|consensus|disagreements?)\s*(\*\*|__)?\s*(:)?\s*(\*\*|__)?\s*(.*)$`)

// sectionHeading recognises a section heading line. Plain prose that starts
// with a section's word ("Consensus is rare") is not one: a heading has a
// leading #, bold markers, or a colon.
func sectionHeading(line string) (sec int, rest string, ok bool) {
	m := sectionRE.FindStringSubmatch(line)
	if m == nil {
		return 0, "", false
	}
	hash, bold, colon, rest := m[1] != "", m[2] != "" && (m[4] != "" || m[6] != ""), m[5] != "", strings.TrimSpace(m[7])
	switch {
	case hash && rest == "":
	case bold, colon:
	default:
		return 0, "", false
	}
	switch w := strings.ToLower(m[3]); {
	case strings.HasPrefix(w, "conclusion"):
		sec = 1
	case strings.HasPrefix(w, "key"):
		sec = 2
	case w == "consensus":
		sec = 3
	default:
		sec = 4
	}
	return sec, rest, true
}

// listItems turns a section's lines into items: list entries (with their
// continuation lines), or paragraphs when there is no list.
func listItems(lines []string) []string {
	var items []string
	var cur strings.Builder
	isList := false
	flush := func() {
		s := strings.TrimSpace(cur.String())
		cur.Reset()
		if s == "" || len(items) >= maxItemsParsed {
			return
		}
		switch strings.ToLower(strings.Trim(s, ". ")) {
		case "none", "n/a", "nothing", "no disagreements", "no major disagreements":
			return
		}
		items = append(items, cutRunes(s, maxItemRunes))
	}
	for _, line := range lines {
		if m := bulletRE.FindStringSubmatch(line); m != nil {
			flush()
			isList = true
			cur.WriteString(m[1])
			continue
		}
		if strings.TrimSpace(line) == "" {
			if !isList {
				flush() // paragraphs end at blank lines
			}
			continue
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(strings.TrimSpace(line))
	}
	flush()
	if items == nil {
		items = []string{}
	}
	return items
}
