package chat

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/quorum-go/quorum/quorum"
)

// drained runs a round on o's chat while a goroutine takes its events:
// no UI reads the feed here.
func drained(t *testing.T, o Options, round func(ctx context.Context) (*quorum.ChatRound, error)) *quorum.ChatRound {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, _, ok := o.Feed.next(ctx); !ok {
				return
			}
		}
	}()
	r, err := round(ctx)
	cancel()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const sampleDiff = `diff --git a/main.go b/main.go
--- a/main.go
+++ b/main.go
@@ -1,3 +1,4 @@
 package main
 
+// Verbose turns on more output.
 func main() {}
`

// After a round the conversation lands where its reader starts: the
// heading of what it concluded, at the top of the screen, for every kind
// of round that has one (the report's own headings: found, not assumed);
// an /ask answer from its top. In colour, as on a terminal.
func TestAfterARoundTheConversationLandsOnItsConclusion(t *testing.T) {
	for _, c := range []struct {
		kind, heading string
		run           func(ctx context.Context, c *quorum.Chat) (*quorum.ChatRound, error)
	}{
		{"discuss", "Synthesis", func(ctx context.Context, c *quorum.Chat) (*quorum.ChatRound, error) {
			return c.Discuss(ctx, "Should we shard the database?")
		}},
		{"plan", "Winning plan", func(ctx context.Context, c *quorum.Chat) (*quorum.ChatRound, error) {
			return c.Plan(ctx, "Migrate the billing service to Postgres")
		}},
		{"debate", "Verdict", func(ctx context.Context, c *quorum.Chat) (*quorum.ChatRound, error) {
			return c.Debate(ctx, "Monorepos beat polyrepos")
		}},
		{"review", "Findings", func(ctx context.Context, c *quorum.Chat) (*quorum.ChatRound, error) {
			return c.Review(ctx, quorum.Change{Diff: sampleDiff}, "the last commit")
		}},
		{"ask", "", func(ctx context.Context, c *quorum.Chat) (*quorum.ChatRound, error) {
			return c.Ask(ctx, "sim-beta", "Why?")
		}},
	} {
		t.Run(c.kind, func(t *testing.T) {
			o := newOptions(t)
			o.Colour = true // as on a terminal: the headings are found in the styled text
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := New(ctx, o)
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			r := drained(t, o, func(ctx context.Context) (*quorum.ChatRound, error) { return c.run(ctx, o.Chat) })
			m.roundDone(r, nil)
			e := m.entries[len(m.entries)-1]
			lines := strings.Split(e.rendered, "\n")
			if got := strings.TrimSpace(ansi.Strip(lines[e.anchor])); c.heading != "" && (e.anchor == 0 || got != strings.ToUpper(c.heading)) {
				t.Errorf("the report's lead is line %d, %q; want the heading %q", e.anchor, got, c.heading)
			}
			view := strings.Split(ansi.Strip(m.conv.View()), "\n")
			switch {
			case c.heading == "":
				if e.anchor != 0 || !strings.Contains(strings.Join(view, "\n"), "ROUND 1 · ASK") {
					t.Errorf("the answer does not show from its top (line %d):\n%s", e.anchor, strings.Join(view, "\n"))
				}
			case m.conv.AtBottom():
				// What follows the heading is shorter than the screen: the
				// heading shows, lower down.
				if !strings.Contains(strings.Join(view, "\n"), strings.ToUpper(c.heading)) {
					t.Errorf("the conclusion is not on the screen:\n%s", strings.Join(view, "\n"))
				}
			case strings.TrimSpace(view[0]) != strings.ToUpper(c.heading):
				t.Errorf("the screen starts at %q, want the heading %q:\n%s", view[0], c.heading, strings.Join(view, "\n"))
			}
		})
	}
}

// The discussion's conclusion does not fit with the rest of its report:
// the screen starts at it, not at the end of the usage table; resized,
// it still does. /help shows from its first line; a note that fits shows
// with what is above it.
func TestTheScreenLandsWhereTheReaderStarts(t *testing.T) {
	o := newOptions(t)
	tm := startUI(t, o, 100, 30)
	enter(tm, "Should we shard the database?")
	teatest.WaitFor(t, tm.Output(), outputHas("1 round(s)"), teatest.WithDuration(guard))
	enter(tm, "/help")
	tm.Send(tea.QuitMsg{}) // after /help: messages are taken in order
	m := tm.FinalModel(t, teatest.WithFinalTimeout(guard)).(*Model)
	if top := firstLine(m); !strings.HasPrefix(top, "Type a question and press Enter for a discussion round") {
		t.Errorf("/help shows from %q, want its first line", top)
	}
	m.landing = len(m.entries) - 2 // the round's report, as before /help
	m.refresh(true)
	if top := firstLine(m); top != "SYNTHESIS" {
		t.Errorf("the round shows from %q, want its synthesis", top)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if top := firstLine(m); top != "SYNTHESIS" {
		t.Errorf("resized, the round shows from %q, want its synthesis", top)
	}
	m.note("A short note.")
	if !m.conv.AtBottom() || !strings.Contains(m.conv.View(), "A short note.") {
		t.Errorf("a short note is not shown at the end:\n%s", m.conv.View())
	}
}

func firstLine(m *Model) string {
	return strings.TrimSpace(ansi.Strip(strings.SplitN(m.conv.View(), "\n", 2)[0]))
}
