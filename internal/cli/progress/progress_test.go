package progress

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/quorum-go/quorum/internal/testing/vtscreen"
	"github.com/quorum-go/quorum/quorum"
)

// The live view redraws its lines in place, throttled to the ticks; a
// finished phase's lines stay, with ✓ or ✗ and the reason; closing
// mid-phase marks what was running as stopped, so no spinner is left.
func TestLiveViewDrawsInPlace(t *testing.T) {
	var raw bytes.Buffer
	scr := &vtscreen.Screen{}
	t0 := time.Unix(1000, 0)
	now := t0
	v := newLiveView(&raw, 64, false, func() time.Time { return now })
	v.draw([]string{"quorum: discussing with model-a, model-b"}) // start without the ticker
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	ev := func(e quorum.Progress) { v.Event(e) }
	snapshot := func() []string {
		scr.Write(raw.Bytes())
		raw.Reset()
		return scr.Text()
	}

	ev(quorum.Progress{Kind: quorum.PhaseStarted, Phase: quorum.PhaseAnswer, Text: "model-a, model-b", Time: at(0)})
	ev(quorum.Progress{Kind: quorum.ModelStarted, Phase: quorum.PhaseAnswer, Model: "model-a", Time: at(0)})
	ev(quorum.Progress{Kind: quorum.Delta, Phase: quorum.PhaseAnswer, Model: "model-a", Text: "hello ", Time: at(time.Second)})
	drawn := raw.Len()
	ev(quorum.Progress{Kind: quorum.Delta, Phase: quorum.PhaseAnswer, Model: "model-a", Text: "wörld", Time: at(time.Second)})
	if raw.Len() != drawn {
		t.Errorf("a delta was drawn at once; deltas wait for the tick")
	}
	now = at(1500 * time.Millisecond)
	v.tick()
	want := []string{
		"quorum: discussing with model-a, model-b",
		"⠙ answer    model-a        answering  11 chars  1.5s",
		"· answer    model-b        waiting",
	}
	if got := snapshot(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	ev(quorum.Progress{Kind: quorum.ModelStarted, Phase: quorum.PhaseAnswer, Model: "model-b", Time: at(time.Second)})
	ev(quorum.Progress{Kind: quorum.ModelFinished, Phase: quorum.PhaseAnswer, Model: "model-a", Text: "hello wörld!", Time: at(2 * time.Second), Elapsed: 2 * time.Second})
	ev(quorum.Progress{Kind: quorum.ModelFinished, Phase: quorum.PhaseAnswer, Model: "model-b", Time: at(3 * time.Second), Elapsed: 2 * time.Second,
		Err: &quorum.ModelError{Model: "model-b", Phase: quorum.PhaseAnswer, Err: errors.New("session: turn failed (rate_limit): " + strings.Repeat("slow down ", 10) + "\nsecond line")}})
	ev(quorum.Progress{Kind: quorum.PhaseFinished, Phase: quorum.PhaseAnswer, Elapsed: 3 * time.Second, Text: "dropped: model-b"})
	ev(quorum.Progress{Kind: quorum.PhaseStarted, Phase: quorum.PhaseVote, Text: "model-a, model-c, model-d"})
	// A failed vote's error comes twice, with the turn and with its VoteCast:
	// it counts once.
	voteErr := &quorum.ModelError{Model: "model-d", Phase: quorum.PhaseVote, Target: "A", Err: errors.New("boom")}
	ev(quorum.Progress{Kind: quorum.ModelStarted, Phase: quorum.PhaseVote, Model: "model-d", Target: "A", Time: at(4 * time.Second)})
	ev(quorum.Progress{Kind: quorum.ModelFinished, Phase: quorum.PhaseVote, Model: "model-d", Target: "A", Time: at(4500 * time.Millisecond), Err: voteErr})
	ev(quorum.Progress{Kind: quorum.VoteCast, Phase: quorum.PhaseVote, Model: "model-d", Target: "A", Err: voteErr})
	ev(quorum.Progress{Kind: quorum.ModelStarted, Phase: quorum.PhaseVote, Model: "model-a", Target: "B", Time: at(4 * time.Second)})
	ev(quorum.Progress{Kind: quorum.ModelStarted, Phase: quorum.PhaseVote, Model: "model-a", Target: "C", Time: at(4 * time.Second)})
	ev(quorum.Progress{Kind: quorum.ModelFinished, Phase: quorum.PhaseVote, Model: "model-a", Target: "B", Text: `{"score": 7}`, Time: at(5 * time.Second)})
	now = at(6 * time.Second)
	v.tick()
	mid := snapshot()
	if got := mid[len(mid)-3]; got != "⠹ vote      model-a        voting 1/2  12 chars  2.0s" {
		t.Errorf("vote line = %q", got)
	}
	v.Close()
	v.Close()
	ev(quorum.Progress{Kind: quorum.PhaseStarted, Phase: quorum.PhaseVote, Text: "late"})
	want = []string{
		"quorum: discussing with model-a, model-b",
		"✓ answer    model-a        done  12 chars  2.0s",
		"✗ answer    model-b        failed after 2.0s: session: turn fa…",
		"✗ vote      model-a        1 of 2 failed after 2.0s: stopped",
		"✗ vote      model-c        not started",
		"✗ vote      model-d        failed after 0.5s: boom",
	}
	got := snapshot()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("final screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range got {
		if utf8.RuneCountInString(l) >= 64 {
			t.Errorf("line wider than the terminal: %q", l)
		}
	}
	if raw.Len() != 0 {
		t.Errorf("drawn after close: %q", raw.String())
	}
}

// The phase column fits the widest phase the run may show: the agent's
// plan-review rows line up with its propose rows, the model in one column.
func TestLiveViewPhaseColumnFitsTheAgentsPhases(t *testing.T) {
	var raw bytes.Buffer
	v := newLiveView(&raw, 80, false, func() time.Time { return time.Unix(1000, 0) })
	v.phaseWidth = phaseColumn([]quorum.Phase{quorum.PhasePlanReview, quorum.PhaseExecute})
	for _, p := range []quorum.Phase{quorum.PhasePropose, quorum.PhasePlanReview} {
		v.Event(quorum.Progress{Kind: quorum.PhaseStarted, Phase: p, Text: "model-a"})
		v.Event(quorum.Progress{Kind: quorum.ModelStarted, Phase: p, Model: "model-a", Time: time.Unix(1000, 0)})
		v.Event(quorum.Progress{Kind: quorum.ModelFinished, Phase: p, Model: "model-a", Time: time.Unix(1001, 0)})
		v.Event(quorum.Progress{Kind: quorum.PhaseFinished, Phase: p})
	}
	scr := &vtscreen.Screen{}
	scr.Write(raw.Bytes())
	want := []string{
		"✓ propose     model-a        done  0 chars  1.0s",
		"✓ plan-review model-a        done  0 chars  1.0s",
	}
	if got := scr.Text(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := phaseColumn(nil); n != 9 {
		t.Errorf("the phase column of discuss is %d wide, want 9", n)
	}
}
