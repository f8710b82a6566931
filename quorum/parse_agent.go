package quorum

import "strings"

// parseAgentPlan reads an agent plan: JSON {"title", "steps": [{"goal",
// "files", "check"} or a string, …], "risks"} (in prose, a code fence, or
// under a "plan" key), else a plan as ParsePlan reads it, each step a goal.
// It reports whether at least one step was found.
func parseAgentPlan(text string) (AgentPlan, []string, bool) {
	var problems []string
	clipped := clip(text, &problems)
	if jp, ok := findJSONPlan(clipped, []string{"steps", "step", "actions", "tasks"}, []string{"title", "name", "summary"}); ok {
		p := AgentPlan{Title: jp.title, Risks: jp.risks}
		list, _ := jp.steps.([]any)
		for _, item := range list {
			if len(p.Steps) == maxItemsParsed {
				break
			}
			if s := agentStep(item); s.Goal != "" {
				p.Steps = append(p.Steps, s)
			}
		}
		ok := checkPlan(p.Title, len(p.Steps), &problems)
		return p, problems, ok
	}
	spec, more, ok := ParsePlan(text)
	problems = append(problems, more...)
	p := AgentPlan{Title: spec.Title, Risks: spec.Risks}
	for _, g := range spec.Steps {
		p.Steps = append(p.Steps, AgentStep{Goal: g, Files: []string{}})
	}
	return p, problems, ok
}

// agentStep reads one step: an object with its goal, files and check, or
// a string that is its goal.
func agentStep(v any) AgentStep {
	s := AgentStep{Files: []string{}}
	switch x := v.(type) {
	case string:
		s.Goal = cutRunes(strings.TrimSpace(x), maxItemRunes)
	case map[string]any:
		if g, ok := field(x, "goal", "title", "step", "action", "summary", "description"); ok {
			s.Goal = cutRunes(str(g), maxItemRunes)
		}
		if f, ok := field(x, "files", "file", "paths", "path"); ok {
			if one := str(f); one != "" {
				s.Files = []string{one}
			} else {
				s.Files = strs(f)
			}
		}
		if c, ok := field(x, "check", "verify", "verification", "test", "validation"); ok {
			s.Check = cutRunes(str(c), maxItemRunes)
		}
	}
	return s
}

// parsePlanReview reads a plan review: JSON {"approve": true|false,
// "objections": […]} ("verdict": "approve"|"changes" is read too). A
// review that approves yet objects counts as asking for changes. ok is
// false when neither a verdict nor objections could be read.
func parsePlanReview(text string) (approve bool, objections []string, problems []string, ok bool) {
	text = clip(text, &problems)
	for _, obj := range jsonObjects(text) {
		verdict, hasVerdict := field(obj, "approve", "approved", "verdict", "decision")
		objs, hasObjs := field(obj, "objections", "changes", "requestedchanges", "concerns", "issues")
		if !hasVerdict && !hasObjs {
			continue
		}
		if hasObjs {
			objections = strs(objs)
		}
		switch v := verdict.(type) {
		case bool:
			approve = v
		case string:
			w := strings.ToLower(strings.TrimSpace(v))
			approve = strings.HasPrefix(w, "approve") || w == "yes" || w == "lgtm"
		default:
			if hasVerdict {
				problems = append(problems, "the verdict is neither true nor false")
			}
			approve = len(objections) == 0
		}
		if approve && len(objections) > 0 {
			problems = append(problems, "the review approves yet objects; read as asking for changes")
			approve = false
		}
		if !approve && len(objections) == 0 {
			problems = append(problems, "the review asks for changes but names none")
			objections = []string{"(changes requested without a reason)"}
		}
		return approve, objections, problems, true
	}
	problems = append(problems, "no JSON review found")
	return false, nil, problems, false
}

// parseShellVote reads a vote on a shell command: JSON {"approve":
// true|false, "reason": "…"}. ok is false when no verdict could be read.
func parseShellVote(text string) (approve bool, reason string, ok bool) {
	var problems []string
	text = clip(text, &problems)
	for _, obj := range jsonObjects(text) {
		v, has := field(obj, "approve", "approved", "allow", "verdict", "decision")
		if !has {
			continue
		}
		if r, ok := field(obj, "reason", "reasoning", "why"); ok {
			reason = cutRunes(str(r), maxItemRunes)
		}
		switch x := v.(type) {
		case bool:
			return x, reason, true
		case string:
			w := strings.ToLower(strings.TrimSpace(x))
			switch {
			case strings.HasPrefix(w, "approve"), strings.HasPrefix(w, "allow"), w == "yes":
				return true, reason, true
			case strings.HasPrefix(w, "deny"), strings.HasPrefix(w, "reject"), w == "no":
				return false, reason, true
			}
		}
	}
	return false, "", false
}
