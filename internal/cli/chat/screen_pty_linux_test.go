package chat

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quorum-go/quorum/internal/sim"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// The chat on a real terminal at 80 and 100 columns (issue 33's points
// 5, 6, 7 and 14), as a person sees it.

var widths = []int{80, 100}

// votesAtOnce makes model's two votes of a /plan round wait for each
// other, so that both run at once, each streaming in small pieces while
// the other runs (as the Copilot CLI's do); each vote's reasoning names
// the plan it scores ("Plan B is …").
func votesAtOnce(model string) sim.Rule {
	var mu sync.Mutex
	n := 0
	both := make(chan struct{})
	return sim.Rule{Name: model + "'s votes at once", Match: func(tt sim.Turn) bool {
		return tt.Model == model && simquorum.Is(quorum.PhaseVote)(tt)
	}, Respond: func(tt sim.Turn) sim.Response {
		mu.Lock()
		if n++; n == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
		case <-time.After(guard): // only a bug waits this long: the screen shows it
		}
		r := simquorum.Vote(tt)
		r.ChunkSize = 4
		return r
	}}
}

var voteSection = regexp.MustCompile(`^── vote of (\S+) ──$`)

// Point 5: Ctrl-O's focused view of a model shows each of its turns under
// its own heading, the two votes that ran at once each with its own text.
func TestFocusedViewKeepsTurnsApartOnATerminal(t *testing.T) {
	for _, cols := range widths {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			p := runOnTerminal(t, newOptions(t, votesAtOnce("sim-alpha")), cols, 30, false)
			p.waitFor("the prompt", showing("Ask the quorum"))
			p.keys("/plan Migrate the billing service to Postgres\r")
			p.waitFor("the round's end", roundsEnded(1))
			p.keys("\x0f") // Ctrl-O: the first pane, sim-alpha's
			lines := p.waitFor("sim-alpha's focused view", func(l []string) bool {
				return len(l) > 1 && strings.Contains(l[1], "sim-alpha ·") && strings.Contains(l[1], "(Esc: back")
			})
			sections := map[string]string{} // plan → the vote's text, unwrapped
			label := ""
			for _, l := range lines[2:] {
				switch m := voteSection.FindStringSubmatch(strings.TrimSpace(l)); {
				case m != nil:
					label = m[1]
					sections[label] = ""
				case strings.HasPrefix(l, "── "), strings.HasPrefix(l, "› "):
					label = ""
				case label != "":
					sections[label] += strings.Join(strings.Fields(l), "")
				}
			}
			if len(sections) != 2 {
				t.Fatalf("%d vote sections, want sim-alpha's two:\n%s", len(sections), strings.Join(lines, "\n"))
			}
			for plan, text := range sections {
				if strings.Count(text, `"reasoning"`) != 1 || !strings.Contains(text, `"reasoning":"Plan`+plan+"is") {
					t.Errorf("the vote of %s shows %q, want that vote's whole text alone:\n%s", plan, text, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

// Point 6: after a round the conversation shows what it concluded (its
// synthesis) from the top of the screen, not the end of its usage table;
// /help shows from its first line.
func TestLandsWhereTheReaderStartsOnATerminal(t *testing.T) {
	for _, cols := range widths {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			p := runOnTerminal(t, newOptions(t), cols, 30, false)
			p.waitFor("the prompt", showing("Ask the quorum"))
			p.keys("Should we shard the database?\r")
			lines := p.waitFor("the round's end", roundsEnded(1))
			if strings.TrimSpace(lines[1]) != "SYNTHESIS" {
				t.Errorf("after the round the screen starts at %q, want the synthesis:\n%s", lines[1], strings.Join(lines, "\n"))
			}
			p.keys("/help")
			p.waitFor("/help typed", showing("› /help"))
			p.keys("\r")
			lines = p.waitFor("the help", showing("› Ask the quorum"))
			if !strings.HasPrefix(lines[1], "Type a question and press Enter for a discussion round") {
				t.Errorf("/help shows from %q, want its first line:\n%s", lines[1], strings.Join(lines, "\n"))
			}
		})
	}
}

// Point 7, full screen: Ctrl-U deletes the input before the cursor, as in
// a shell.
func TestCtrlUClearsTheInputOnATerminal(t *testing.T) {
	for _, cols := range widths {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			p := runOnTerminal(t, newOptions(t), cols, 30, false)
			p.waitFor("the prompt", showing("Ask the quorum"))
			p.keys("hello there")
			p.waitFor("the text typed", showing("› hello there"))
			p.keys("\x15X") // Ctrl-U, then a letter: what the input holds shows
			lines := p.waitFor("the input after Ctrl-U", showing("X"))
			if i := lineWith(lines, "X"); strings.TrimSpace(lines[i]) != "› X" {
				t.Errorf("after Ctrl-U the input shows %q, want only what was typed after it", lines[i])
			}
		})
	}
}

// Point 7, line by line on a terminal: the prompt waits for the line
// typed (the terminal's own Ctrl-U erases what was typed before it), an
// /ask answer streams and is not printed again in the round's report.
func TestPlainOnATerminal(t *testing.T) {
	for _, cols := range widths {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			o := newOptions(t)
			p := runOnTerminal(t, o, cols, 30, true)
			p.waitFor("the prompt", func(l []string) bool { return len(l) > 0 && l[len(l)-1] == "›" })
			p.keys("garbage\x15/ask sim-beta why?\r")
			lines := p.waitFor("the round's end", func(l []string) bool {
				return lineWith(l, "Round 1 · ask: why?") >= 0 && l[len(l)-1] == "›"
			})
			screen := strings.Join(lines, "\n")
			if lineWith(lines, "› /ask sim-beta why?") < 0 || strings.Contains(screen, "garbage") {
				t.Errorf("the typed line does not show as read:\n%s", screen)
			}
			rs := o.Chat.Rounds()
			if len(rs) != 1 || rs[0].Ask == nil {
				t.Fatalf("rounds: %+v", rs)
			}
			if n := strings.Count(folded(lines), strings.Join(strings.Fields(rs[0].Ask.Text), " ")); n != 1 {
				t.Errorf("the answer is on the screen %d times, want once:\n%s", n, screen)
			}
			if !strings.Contains(screen, "sim-beta (simulated): its answer is above") {
				t.Errorf("the report does not point to the answer above:\n%s", screen)
			}
		})
	}
}

// Point 14: a round stopped with Esc says so in the chat's words, at the
// top of its report, where the screen lands; not Go's "context canceled".
func TestStoppedRoundOnATerminal(t *testing.T) {
	for _, cols := range widths {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			o := newOptions(t, hangsIn("sim-gamma", quorum.PhaseReview))
			p := runOnTerminal(t, o, cols, 30, false)
			p.waitFor("the prompt", showing("Ask the quorum"))
			p.keys("Should we shard the database?\r")
			p.waitFor("the review phase", showing("discuss · review"))
			p.keys("\x1b") // Esc
			lines := p.waitFor("the round's end", roundsEnded(1))
			screen := folded(lines)
			if !strings.Contains(screen, "INCOMPLETE: interrupted: you stopped the round in its review phase; what had come in by then is kept.") {
				t.Errorf("the screen does not say that the round was stopped:\n%s", strings.Join(lines, "\n"))
			}
			if strings.Contains(screen, "context canceled") {
				t.Errorf("Go's words on the screen:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}
