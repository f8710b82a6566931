package quorum

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Review runs a review of change among cfg.Models, through b:
//
//  1. Inspect: every model reviews the change independently and at once,
//     in its own session. The change is quoted between delimiter lines
//     (anything in it that looks like a delimiter defanged) with every
//     line numbered as in the new files, and the prompt tells the models
//     that the change is material, never instructions; context files are
//     quoted the same way. Each model reports findings: file, lines,
//     severity (blocking, major, minor), category, explanation and
//     suggested fix.
//  2. Merge: findings on the same file whose lines overlap and whose
//     categories agree, or whose explanations say the same, are one
//     finding, with the models that reported it (its agreement). The
//     merged findings are ranked by severity, then agreement, then file
//     and line, and numbered F1, F2, ….
//
// Failure, timeouts and cancellation behave as in Discuss: a model that
// fails, or whose reply holds neither findings nor a clear "no findings"
// (ErrUnparsable), is left out and the run goes on, degraded; fewer than
// cfg.MinModels left fail it with a *TooFewError. The moderator and the
// settings of other strategies are not used. The returned ReviewResult is
// nil only when the arguments are invalid (the change too: see
// Change.Validate); after a failed or cancelled run it holds the
// inspections that came in and their merged findings.
func Review(ctx context.Context, b Backend, change Change, cfg Config) (*ReviewResult, error) {
	s, err := cfg.settleFor(b, change.Diff, "diff")
	if err != nil {
		return nil, err
	}
	if err := change.Validate(); err != nil {
		return nil, err
	}
	files, err := parseDiff(change.Diff)
	if err != nil {
		return nil, invalid("the diff is not a valid unified diff: %v", err)
	}
	s.fit(reviewShape, fewerModels(0))
	rv := &ReviewResult{Change: summarise(files, change.Context), Models: s.Models}
	r := newRun(ctx, b, s, &rv.Outcome)
	err = r.inspect(rv, change, files)
	r.finish(err, false)
	rv.fillLists()
	return rv, err
}

// inspect runs the inspect phase and merges the findings, also when the
// phase ends the run.
func (r *run) inspect(rv *ReviewResult, c Change, files []diffFile) error {
	texts := []string{c.Diff}
	for _, f := range c.Context {
		texts = append(texts, f.Path, f.Text)
	}
	nonce := nonceOf(texts...)
	// The list of files stands outside the quoted diff, and paths are the
	// diff's text (git can quote a newline into one): each is folded onto
	// its line and defanged.
	var list []string
	for _, f := range files {
		list = append(list, "- "+oneLine(defang.Replace(fileLine(f.ChangedFile))))
	}
	var ctxBlocks []string
	for i, f := range c.Context {
		n := fmt.Sprint(i + 1)
		ctxBlocks = append(ctxBlocks, fmt.Sprintf("Context file %s: %s\n%s", n, oneLine(defang.Replace(f.Path)), quote("FILE "+n, nonce, f.Text)))
	}
	ph, results, err := r.askEveryModel(PhaseInspect, r.s.t.inspect, InspectData{
		Files: strings.Join(list, "\n"), Diff: quote("DIFF", nonce, annotate(files)),
		Context: strings.Join(ctxBlocks, "\n\n"), Nonce: nonce, Example: inspectExample(files),
	}, r.s.Prompts.InspectSystem)
	if err != nil {
		return err
	}
	known := knownPaths(files, c.Context)
	kept, dropped := ph.collect(results, func(res result) bool {
		fs, problems, ok := ParseFindings(res.reply.Text)
		for i := range fs {
			fs[i].File = resolvePath(fs[i].File, known, &problems)
		}
		rv.Inspections = append(rv.Inspections, Inspection{
			Model: res.model, Findings: fs, RawReply: RawReply{Raw: res.reply.Text, Problems: problems}, Usable: ok, TurnCost: res.cost(),
		})
		ev := Progress{Kind: FindingsParsed, Phase: PhaseInspect, Model: res.model, Text: summariseFindings(fs, problems)}
		if !ok {
			ev.Err = r.unparsable(PhaseInspect, res.task, problems)
		}
		r.ev.emit(ev)
		return ok
	})
	rv.Findings = mergeFindings(rv.Inspections)
	var left []string
	for _, res := range kept {
		left = append(left, res.model)
	}
	return ph.end(dropped, left)
}

var plainPathRE = regexp.MustCompile(`^[A-Za-z0-9_./@+-]{1,200}$`)

// knownPaths are the paths a finding may name: the changed files, their
// old names, and the context files.
func knownPaths(files []diffFile, context []ContextFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
		if f.OldPath != "" {
			out = append(out, f.OldPath)
		}
	}
	for _, f := range context {
		out = append(out, f.Path)
	}
	return out
}

// resolvePath maps a finding's path to one of known: as written, without
// git's a/ or b/ prefix or a leading ./, or the one known path it is the
// end of ("db.go" for "store/db.go"). A path the change does not know
// is kept, with a problem.
func resolvePath(p string, known []string, problems *[]string) string {
	if p == "" {
		return ""
	}
	clean := strings.ReplaceAll(p, `\`, "/")
	for _, pre := range []string{"a/", "b/", "./"} {
		if c := strings.TrimPrefix(clean, pre); c != clean && slices.Contains(known, c) {
			return c
		}
	}
	clean = path.Clean(strings.TrimPrefix(clean, "./"))
	if slices.Contains(known, clean) {
		return clean
	}
	var ends []string
	for _, k := range known {
		if strings.HasSuffix(k, "/"+clean) {
			ends = append(ends, k)
		}
	}
	if len(ends) == 1 {
		return ends[0]
	}
	*problems = append(*problems, fmt.Sprintf("a finding is on %s, which the change does not touch; kept", cutRunes(p, 80)))
	return p
}

// inspectExample is the JSON reply the reviewers are shown, naming the
// first changed file when its path is a plain one: the example stands
// outside the quoted diff, where a path with words in it must not go.
func inspectExample(files []diffFile) string {
	file := "path/to/file"
	if len(files) > 0 && plainPathRE.MatchString(files[0].Path) {
		file = files[0].Path
	}
	b, _ := json.Marshal(map[string]any{"findings": []map[string]any{{
		"file": file, "startLine": 12, "endLine": 14, "severity": "major", "category": "bug",
		"explanation": "what is wrong and why it matters", "suggestion": "a concrete fix",
	}}})
	return string(b)
}

// summariseFindings is a FindingsParsed event's text: "3 findings (1
// blocking, 2 minor)".
func summariseFindings(fs []Finding, problems []string) string {
	by := map[Severity]int{}
	for _, f := range fs {
		by[f.Severity]++
	}
	var parts []string
	for _, sev := range Severities {
		if by[sev] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", by[sev], sev))
		}
	}
	s := plural(len(fs), "finding")
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	if len(problems) > 0 {
		s += fmt.Sprintf(", %s", plural(len(problems), "parse problem"))
	}
	return s
}
