package report

import (
	"strings"
	"testing"

	"github.com/quorum-go/quorum/quorum"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// evil is what a hostile model could write: terminal control sequences,
// and Markdown that tries to pass for the report's own structure.
const evil = "Sure.\n\n## Synthesis\n\nIgnore the others \x1b]8;;https://x.example\x07here\x1b]8;;\x07 \x1b[2J\u009b31m\n```\nunclosed fence"

func evilDiscussion() *quorum.DiscussResult {
	return &quorum.DiscussResult{
		Question: "Q?\x1b[31m",
		Models:   []string{"m\x1b[1m1", "m2"},
		Answers: []quorum.Answer{
			{Label: "A", Model: "m2", Text: "A fine answer."},
			{Label: "B", Model: "m\x1b[1m1", Text: evil},
		},
		Reviews: []quorum.PeerReview{{Reviewer: "m2", ReviewerLabel: "A", Reviewed: []string{"B"}, Usable: true,
			Verdict: quorum.Verdict{Assessments: []quorum.Assessment{{Label: "B", Score: 3, Strengths: []string{"- # not a heading \x07"}, Weaknesses: []string{"| pipe |"}}}}}},
		Standings: []quorum.Standing{{Rank: 1, Label: "A", Model: "m2", MeanScore: 7, Scores: 1}, {Rank: 2, Label: "B", Model: "m\x1b[1m1", MeanScore: 3, Scores: 1}},
		Ranked:    true,
		Synthesis: &quorum.Synthesis{Moderation: quorum.Moderation{Moderator: "m2", RequestedModerator: "m2"},
			Sections: quorum.Sections{Conclusion: "Go with A.\x1b[0m", KeyPoints: []string{"# one"}}},
	}
}

// Whatever the models wrote, neither form of the report carries a
// control character a terminal would act on, and the Markdown form keeps
// a model's headings and fences inside its quote.
func TestReportsNeutraliseModelText(t *testing.T) {
	r := Discuss(evilDiscussion())
	var text, md strings.Builder
	Text(&text, r, Options{})
	Markdown(&md, r, Options{})
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
				t.Errorf("%s: control character %U in the report", name, r)
			}
		}
		if !strings.Contains(out, "␛]8;;https://x.example␇here") {
			t.Errorf("%s: the neutralised hyperlink is not shown as text:\n%s", name, out)
		}
	}
	m := md.String()
	for _, want := range []string{"> ## Synthesis", "> ```", "> unclosed fence", "### Response B · m␛[1m1", "- \\# one", "  - − | pipe |"} {
		if !strings.Contains(m, want) {
			t.Errorf("markdown lacks %q:\n%s", want, m)
		}
	}
	if strings.Count(m, "\n## Synthesis") != 1 {
		t.Errorf("a model's heading passes for the report's own:\n%s", m)
	}
}

// The report says which model wrote which label wherever labels are used.
func TestLettersAreMappedToModels(t *testing.T) {
	var text strings.Builder
	Text(&text, Discuss(evilDiscussion()), Options{})
	for _, want := range []string{"Response A · m2", "Response B (m␛[1m1): 3/10", "Responses: A = m2, B = m␛[1m1", "1     A         m2"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestExcerpt(t *testing.T) {
	if got := excerpt("  short  "); got != "short" {
		t.Errorf("excerpt = %q", got)
	}
	long := strings.Repeat("word ", 2000)
	got := excerpt(long)
	if len([]rune(got)) > subjectRunes+100 || !strings.HasSuffix(got, "… (9,599 more characters, left out here; -o json has the whole text)") {
		t.Errorf("excerpt = %q", got)
	}
	lines := excerpt(strings.Repeat("line\n", 20))
	if strings.Count(lines, "\n") != subjectLines-1 || !strings.Contains(lines, "more characters") {
		t.Errorf("excerpt of many lines = %q", lines)
	}
}

// Failures with the same error are one line naming every model (and every
// plan of a failed vote) it hit.
func TestFailureLinesGroupRepeats(t *testing.T) {
	fs := []quorum.Failure{
		{Model: "a", Phase: quorum.PhaseAnswer, Kind: "error", Error: "router: stopped: the CLI exited"},
		{Model: "b", Phase: quorum.PhaseAnswer, Kind: "error", Error: "router: stopped: the CLI exited"},
		{Model: "c", Phase: quorum.PhaseAnswer, Kind: "timeout", Error: "quorum: time limit reached"},
		{Model: "d", Phase: quorum.PhaseVote, Target: "A", Kind: "error", Error: "boom"},
		{Model: "d", Phase: quorum.PhaseVote, Target: "B", Kind: "error", Error: "boom"},
		{Model: "e", Phase: quorum.PhaseVote, Target: "A", Kind: "canceled", Error: "context canceled"},
	}
	want := []string{
		"a, b, answer phase (error): router: stopped: the CLI exited",
		"c, answer phase (timeout): time limit reached; raise --phase-timeout, or leave the slow model out",
		"d on plans A, B, vote phase (error): boom",
		"e on plan A, vote phase (canceled): stopped before it finished, when the run was cancelled",
	}
	got := FailureLines(fs)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The usage section puts the estimate made before the run beside what each
// model and phase used, and says what the cap and early stop did.
func TestUsageShowsEstimateBesideUse(t *testing.T) {
	d := evilDiscussion()
	d.Calls = []quorum.Call{{Phase: quorum.PhaseAnswer, Model: "m2", Outcome: "ok", Usage: quorum.Usage{Cost: 1}}, {Phase: quorum.PhaseSynthesis, Model: "m2", Outcome: "ok", Usage: quorum.Usage{Cost: 1}}}
	d.UsageByModel = map[string]quorum.Usage{"m2": {Cost: 2}}
	d.Usage = quorum.Usage{Cost: 2}
	d.Premium = &quorum.Premium{Cap: 3, Used: 2, LeftOut: []string{"the peer review (2 turns)"}, Skipped: 1, SkippedWhy: "1 review not started",
		Estimate: quorum.Estimate{Premium: quorum.Span{Min: 2, Max: 3}, Phases: []quorum.PhaseEstimate{
			{Phase: quorum.PhaseAnswer, Turns: quorum.Span{Min: 1, Max: 1}, Premium: quorum.Span{Min: 1, Max: 1}, Models: []quorum.ModelEstimate{{Model: "m2", Turns: quorum.Span{Min: 1, Max: 1}, Premium: quorum.Span{Min: 1, Max: 1}}}},
			{Phase: quorum.PhaseSynthesis, Turns: quorum.Span{Min: 1, Max: 2}, Premium: quorum.Span{Min: 1, Max: 2}, Models: []quorum.ModelEstimate{{Model: "m2", Turns: quorum.Span{Min: 1, Max: 2}, Premium: quorum.Span{Min: 1, Max: 2}}}},
		}}}
	var text strings.Builder
	Text(&text, Discuss(d), Options{Sections: []string{"usage"}})
	for _, want := range []string{
		"m2     2      0             0              2–3                2\n",
		"total  2      0             0              2–3                2\n",
		"PHASE      TURNS ESTIMATED  TURNS  PREMIUM ESTIMATED  PREMIUM REQUESTS",
		"synthesis  1–2              1      1–2                1\n",
		"cap was 3 premium requests (--max-premium); it used 2.", "left out the peer review (2 turns).", "Early stop saved 1 turn: 1 review not started",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, text.String())
		}
	}
}

// Usage shows each model's figures and says what premium requests are;
// when the CLI reported none, it says so instead of showing zeros.
func TestUsageSaysWhatCostIs(t *testing.T) {
	d := evilDiscussion()
	d.Calls = []quorum.Call{{Model: "m2"}, {Model: "m2"}, {Model: "x"}}
	d.UsageByModel = map[string]quorum.Usage{"m2": {InputTokens: 10, OutputTokens: 5, Cost: 2}, "x": {InputTokens: 1, Cost: 0.33}}
	d.Usage = quorum.Usage{InputTokens: 11, OutputTokens: 5, Cost: 2.33}
	var text strings.Builder
	Text(&text, Discuss(d), Options{Sections: []string{"usage"}})
	for _, want := range []string{"MODEL  TURNS  INPUT TOKENS  OUTPUT TOKENS  PREMIUM ESTIMATED  PREMIUM REQUESTS", "m2     2      10            5              -                  2\n", "total  3      11            5              -                  2.33",
		"Premium requests are GitHub Copilot's billing unit"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, text.String())
		}
	}
	d.Usage.Cost, d.UsageByModel = 0, map[string]quorum.Usage{}
	text.Reset()
	Text(&text, Discuss(d), Options{Sections: []string{"usage"}})
	if !strings.Contains(text.String(), "The CLI reported no premium requests") || !strings.Contains(text.String(), "  -\n") {
		t.Errorf("usage without cost:\n%s", text.String())
	}
}

// A table on a terminal is as wide as what it holds, never stretched;
// narrower, its text columns wrap at spaces and its headers and numbers
// stay whole; too narrow for that, each row is lines of "header: value".
func TestTerminalTables(t *testing.T) {
	md := "## Standings\n\n| Rank | Title | Mean score |\n|---:|:---|---:|\n| 1 | A plan with a rather long title | 8.00 |\n| 2 | Short | 10.00 |\n"
	wide, err := Terminal(md, 120, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(wide, "  Rank  Title                            Mean score\n") || !strings.Contains(wide, "     1  A plan with a rather long title        8.00\n") {
		t.Errorf("120 columns:\n%s", wide)
	}
	narrow, _ := Terminal(md, 36, false)
	if !strings.Contains(narrow, "     1  A plan with a           8.00\n") || !strings.Contains(narrow, "        rather long\n") {
		t.Errorf("36 columns:\n%s", narrow)
	}
	tiny, _ := Terminal(md, 20, false)
	if !strings.Contains(tiny, "  Rank: 1\n  Title: A plan with\n") || !strings.Contains(tiny, "  Mean score: 8.00\n") {
		t.Errorf("20 columns:\n%s", tiny)
	}
	for w := 20; w <= 120; w++ {
		out, _ := Terminal(md, w, false)
		for _, n := range []string{"8.00", "10.00", "Mean", "score"} {
			if !strings.Contains(out, n) {
				t.Errorf("%d columns: %q split:\n%s", w, n, out)
			}
		}
	}
}

// The quorum package's Config names become the flags that set them.
func TestPlainSaysFlags(t *testing.T) {
	for in, want := range map[string]string{
		"no reply within the phase timeout (Config.PhaseTimeout, 5m) of the answer phase": "no reply within the phase timeout (--phase-timeout, 5m) of the answer phase",
		"the run took longer than Config.Timeout (1s)":                                    "the run took longer than --timeout (1s)",
		"tool calls (200); raise AgentConfig.MaxToolCalls (--max-tool-calls) if needed":   "tool calls (200); raise --max-tool-calls if needed",
		"Config.Rounds is 11": "--rounds is 11",
	} {
		if got := Plain(in); got != want || strings.Contains(got, "Config") {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}
