package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/quorum-go/quorum/quorum"
)

// The plain-text report at a width: prose is wrapped, a list item's
// further lines under its text; a model's fenced code, table rows and
// JSON lines, and the report's own tables, are left whole.
func TestTextWrapsProseOnly(t *testing.T) {
	code := `    if err := run(ctx, "a very long argument that goes on and on"); err != nil { return err }`
	json := `{"score": 7, "reasoning": "a long reasoning that would not fit in forty columns at all"}`
	table := `| a column that is long | another column that is long too |`
	answer := "A first paragraph that is long enough to be wrapped at forty columns, surely.\n\n" +
		"- a list item that is long enough to wrap onto a second line\n\n```go\n" + code + "\n```\n\n" + json + "\n" + table
	d := &quorum.DiscussResult{Question: "Q?", Models: []string{"m1", "m2"},
		Answers: []quorum.Answer{{Label: "A", Model: "m1", Text: answer}, {Label: "B", Model: "m2", Text: "Short."}}}
	var b strings.Builder
	Text(&b, Discuss(d), Options{Width: 40, Simulated: true})
	out := b.String()
	kept := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		for _, whole := range []string{code, json, table} {
			if strings.TrimSpace(l) == strings.TrimSpace(whole) {
				kept[whole] = true
			}
		}
		if utf8.RuneCountInString(l) > 40 && !strings.Contains(l, "  ") && !kept[strings.TrimSpace(l)] {
			t.Errorf("a line of prose wider than 40 columns: %q", l)
		}
	}
	if len(kept) != 3 {
		t.Errorf("code, JSON or a table row was wrapped:\n%s", out)
	}
	for _, want := range []string{
		"      - a list item that is long enough\n        to wrap onto a second line\n",
		"SIMULATED RUN (--sim): every answer\nbelow comes from quorum's built-in\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	var unwrapped strings.Builder
	Text(&unwrapped, Discuss(d), Options{})
	if !strings.Contains(unwrapped.String(), "A first paragraph that is long enough to be wrapped at forty columns, surely.") {
		t.Errorf("without a width the text was wrapped:\n%s", unwrapped.String())
	}
}
