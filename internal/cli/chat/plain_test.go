package chat

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Line by line from a pipe: each line read is echoed after the prompt,
// as a person's typing would show, so that no prompt is left in front of
// the output that follows ("› · answer: …"); an /ask answer, streamed,
// is not printed again in its report.
func TestPlainFromAPipe(t *testing.T) {
	o := newOptions(t)
	var out bytes.Buffer
	in := strings.NewReader("/ask sim-beta why?\nShould we \\\nshard?\n")
	if _, err := RunPlain(context.Background(), o, in, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"\n› /ask sim-beta why?\n· ask: sim-beta\n", "\n› Should we \n  shard?\n· answer: ",
		"Round 1 · ask: why?\n\nsim-beta (simulated): its answer is above, as it came in.\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("the output lacks %q:\n%s", want, s)
		}
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "› ") && strings.TrimSpace(strings.TrimPrefix(l, "› ")) != "" &&
			!strings.HasPrefix(l, "› /ask") && !strings.HasPrefix(l, "› Should we") {
			t.Errorf("a prompt in front of output: %q", l)
		}
	}
	if strings.HasSuffix(s, "› ") || strings.HasSuffix(s, "›\n") {
		t.Errorf("a prompt left waiting at the end:\n%s", s)
	}
	rs := o.Chat.Rounds()
	if len(rs) != 2 || rs[0].Ask == nil {
		t.Fatalf("rounds: %+v", rs)
	}
	if n := strings.Count(s, strings.TrimSpace(rs[0].Ask.Text)); n != 1 {
		t.Errorf("the answer is printed %d times, want once:\n%s", n, s)
	}
}
