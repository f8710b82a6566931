package quorum

import (
	"regexp"
	"strings"
)

// ParsePlan parses a proposed plan: JSON {"title", "steps": […], "risks":
// […]} (in prose, a code fence, or under a "plan" key), or else Markdown
// with a heading or "Title:" line, numbered steps and a Risks section. It
// reports whether at least one step was found.
//
// Plan calls it on every proposal; it is exported for code that reads
// replies outside a run (see Parsing in the package doc).
func ParsePlan(text string) (PlanSpec, []string, bool) {
	var problems []string
	text = clip(text, &problems)
	if jp, ok := findJSONPlan(text, []string{"steps", "step", "actions", "tasks", "phases"}, []string{"title", "name", "summary", "goal"}); ok {
		p := PlanSpec{Title: jp.title, Steps: strs(jp.steps), Risks: jp.risks}
		if !jp.listsRisks {
			problems = append(problems, "the plan lists no risks")
		}
		ok := checkPlan(p.Title, len(p.Steps), &problems)
		return p, problems, ok
	}
	problems = append(problems, "no JSON plan found; read as Markdown")
	p := planFromText(text, &problems)
	return p, problems, len(p.Steps) > 0
}

// jsonPlan is a plan as JSON gives it (see findJSONPlan).
type jsonPlan struct {
	steps      any // the list of steps, each as the JSON has it
	title      string
	risks      []string
	listsRisks bool // the object has a list of risks, empty or not
}

// findJSONPlan reads the plan of ParsePlan and of an agent: the first
// JSON object in text (in prose, a code fence, or under a "plan" key)
// with steps under one of stepKeys; its title is under one of
// titleKeys. It reports whether there was one.
func findJSONPlan(text string, stepKeys, titleKeys []string) (jsonPlan, bool) {
	for _, obj := range jsonObjects(text) {
		if inner, ok := field(obj, "plan"); ok {
			if o, ok := inner.(map[string]any); ok {
				obj = o
			}
		}
		st, ok := field(obj, stepKeys...)
		if !ok {
			continue
		}
		p := jsonPlan{steps: st, risks: []string{}}
		if t, ok := field(obj, titleKeys...); ok {
			p.title = cutRunes(str(t), maxTitleRunes)
		}
		if r, ok := field(obj, "risks", "risk", "pitfalls", "concerns"); ok {
			p.risks, p.listsRisks = strs(r), true
		}
		return p, true
	}
	return jsonPlan{}, false
}

// checkPlan adds to problems what a plan lacks of a title and steps, and
// reports whether it has steps.
func checkPlan(title string, steps int, problems *[]string) bool {
	if title == "" {
		*problems = append(*problems, "the plan has no title")
	}
	if steps == 0 {
		*problems = append(*problems, "the plan has no steps")
		return false
	}
	return true
}

var (
	titleLineRE = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*title\s*(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.+?)\s*(?:\*\*)?\s*$`)
	headingRE   = regexp.MustCompile(`^\s*#{1,6}\s+(.+?)\s*#*\s*$`)
	risksHeadRE = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*(?:key\s+)?risks?(?:\s+and\s+mitigations?)?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$`)
	stepsHeadRE = regexp.MustCompile(`(?i)^\s*(?:#{1,6}\s*)?(?:\*\*)?\s*(?:ordered\s+)?steps?\s*(?:\*\*)?\s*:?\s*(?:\*\*)?\s*$`)
	numItemRE   = regexp.MustCompile(`^\s*\d+[.)]\s+(.+)$`)
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
