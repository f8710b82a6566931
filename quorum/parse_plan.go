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
	for _, obj := range jsonObjects(text) {
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
