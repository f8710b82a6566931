package chat

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/quorum-go/quorum/internal/report"
)

// TestCompactDrawsTheSame: compact keeps every character and every
// style that shows, drops what shows nothing, and leaves what it does not
// model alone.
func TestCompactDrawsTheSame(t *testing.T) {
	pad := "\x1b[38;5;252m \x1b[0m" // glamour's padding blank
	for _, c := range []struct{ name, in, want string }{
		{"padding around a heading", pad + pad + "\x1b[38;5;39;1mTitle\x1b[0m" + strings.Repeat(pad, 40), "  \x1b[0;1;38;5;39mTitle\x1b[0m"},
		{"words in one style", "\x1b[38;5;252mone\x1b[0m" + pad + "\x1b[38;5;252mtwo\x1b[0m", "\x1b[0;38;5;252mone two\x1b[0m"},
		{"plain trailing blanks", "abc   \n  d  \n", "abc\n  d\n"},
		{"a background shows blanks", "\x1b[48;5;236m  code  \x1b[0m  ", "\x1b[0;48;5;236m  code  \x1b[0m"},
		{"underlined blanks show", "a\x1b[4m  \x1b[0m", "a\x1b[0;4m  \x1b[0m"},
		{"a style over two lines", "\x1b[1mbold\nstill\x1b[22m plain", "\x1b[0;1mbold\x1b[0m\n\x1b[0;1mstill \x1b[0mplain"},
		{"colours reset one by one", "\x1b[31;44mx\x1b[39my\x1b[49mz", "\x1b[0;31;44mx\x1b[0;44my\x1b[0mz"},
		{"true colour", "\x1b[38;2;1;2;3mrgb\x1b[m", "\x1b[0;38;2;1;2;3mrgb\x1b[0m"},
		{"a hyperlink is left alone", "\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\  ", "\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\  "},
		{"another CSI is left alone", "\x1b[2Jx  ", "\x1b[2Jx  "},
		{"sub-parameters are left alone", "\x1b[4:3mx  ", "\x1b[4:3mx  "},
		{"an unknown attribute is left alone", "\x1b[53mx  ", "\x1b[53mx  "},
		{"a control character is left alone", "a\rb  ", "a\rb  "},
		{"invalid UTF-8 is left alone", "a\xffb  ", "a\xffb  "},
	} {
		if got := compact(c.in); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestCompactShrinksAReport: a round's report rendered in colour at 120
// columns is a fraction of its size compacted, shows the same text, and
// every character keeps its style (blanks that show nothing excepted).
func TestCompactShrinksAReport(t *testing.T) {
	o := newOptions(t)
	ctx, cancel := context.WithCancel(context.Background())
	drained := make(chan struct{})
	go func() { // no screen reads the round's events: drop them
		defer close(drained)
		for {
			if _, _, ok := o.Feed.next(ctx); !ok {
				return
			}
		}
	}()
	r, err := o.Chat.Discuss(ctx, "Should we shard the database?")
	cancel()
	<-drained
	if err != nil {
		t.Fatal(err)
	}
	md := RoundMarkdown(r, true)
	out, err := report.Terminal(md, 120, true)
	if err != nil {
		t.Fatal(err)
	}
	got := compact(out)
	if len(got)*5 > len(out) {
		t.Errorf("compacted %d of %d bytes (Markdown %d), want at most a fifth", len(got), len(out), len(md))
	}
	if compact(got) != got {
		t.Error("compacting again changes the text")
	}
	gotLines, outLines := strings.Split(got, "\n"), strings.Split(out, "\n")
	if len(gotLines) != len(outLines) {
		t.Fatalf("%d lines, want %d", len(gotLines), len(outLines))
	}
	var a, b sgr
	var ca, cb []styled
	var ok bool
	for i := range outLines {
		if ca, a, ok = styledCells(outLines[i], a, ca[:0]); !ok {
			t.Fatalf("line %d of the rendering not modelled: %q", i, outLines[i])
		}
		if cb, b, ok = styledCells(gotLines[i], b, cb[:0]); !ok {
			t.Fatalf("line %d of the compacted text not modelled: %q", i, gotLines[i])
		}
		if w, g := ansi.Strip(outLines[i]), ansi.Strip(gotLines[i]); !strings.HasPrefix(w, g) || strings.TrimSpace(w[len(g):]) != "" {
			t.Fatalf("line %d shows %q, want %q", i, g, w)
		}
		for j := range cb {
			blank := ca[j].r == ' ' && !ca[j].st.showsBlank() && !cb[j].st.showsBlank()
			if cb[j].r != ca[j].r || !blank && cb[j].st != ca[j].st {
				t.Fatalf("line %d, column %d: %q in %+v, want %q in %+v", i, j, cb[j].r, cb[j].st, ca[j].r, ca[j].st)
			}
		}
		for _, c := range ca[len(cb):] {
			if c.r != ' ' || c.st.showsBlank() {
				t.Fatalf("line %d: dropped %q in %+v, which shows", i, c.r, c.st)
			}
		}
	}
}

// TestReportsAreKeptCompacted: the conversation keeps each round's
// report, rendered in colour, at about the size of its Markdown, not the
// thirty-odd times glamour's rendering takes.
func TestReportsAreKeptCompacted(t *testing.T) {
	o := newOptions(t)
	o.Colour = true
	tm := startUI(t, o, 120, 40)
	enter(tm, "Should we shard the database?")
	teatest.WaitFor(t, tm.Output(), outputHas("1 round(s)"), teatest.WithDuration(guard))
	tm.Send(tea.QuitMsg{})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	reports := 0
	for _, e := range m.entries {
		if e.kind != entryReport {
			continue
		}
		reports++
		if len(e.rendered) > 3*len(e.md) {
			t.Errorf("the report is kept in %d bytes, its Markdown is %d: want at most three times", len(e.rendered), len(e.md))
		}
		if !strings.Contains(e.rendered, "\x1b[") {
			t.Error("the report has no colour")
		}
	}
	if reports != 1 {
		t.Fatalf("%d reports, want 1", reports)
	}
}
