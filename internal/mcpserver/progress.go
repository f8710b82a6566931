package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/internal/sanitize"
	"github.com/quorum-go/quorum/quorum"
)

// progress sends a call's progress notifications: one per phase started
// and ended, and one per model that finished a turn (answered, reviewed,
// voted…). It is nil for a call whose client sent no progress token, and
// every method of a nil progress does nothing.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any

	// mu keeps notifications in order and their values growing: quorum
	// calls event from one goroutine at a time, but ask's step comes from
	// the call's own.
	mu sync.Mutex
	n  float64
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	return &progress{ctx: ctx, session: req.Session, token: tok}
}

// step sends one notification. It waits for the transport at most until
// the call ends: quorum's runs never wait for their Progress (events queue
// meanwhile), and a cancelled call stops notifying.
func (p *progress) step(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx.Err() != nil {
		return
	}
	p.n++
	_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg})
}

// event is quorum.Config.Progress for a call.
func (p *progress) event(ev quorum.Progress) {
	if p == nil {
		return
	}
	if msg := eventText(ev); msg != "" {
		p.step(msg)
	}
}

// eventText words the events a client is told of; "" for the others
// (deltas, prompts, parsed replies: a model's finish already says it).
func eventText(ev quorum.Progress) string {
	model := sanitize.Line(ev.Model)
	switch ev.Kind {
	case quorum.PhaseStarted:
		return fmt.Sprintf("%s phase started: %s", ev.Phase, sanitize.Line(ev.Text))
	case quorum.ModelFinished:
		if ev.Err != nil {
			return fmt.Sprintf("%s failed in the %s phase: %s", model, ev.Phase, sanitize.Line(firstLine(ev.Err.Error())))
		}
		return fmt.Sprintf("%s %s (%.1fs)", model, verb(ev.Phase), ev.Elapsed.Seconds())
	case quorum.ModeratorReplaced:
		return fmt.Sprintf("%s takes the moderator's place: %s", model, sanitize.Line(ev.Text))
	case quorum.DebateSettled:
		return "debate settled: " + sanitize.Line(ev.Text)
	case quorum.PhaseFinished:
		msg := fmt.Sprintf("%s phase finished (%.1fs)", ev.Phase, ev.Elapsed.Seconds())
		if ev.Text != "" {
			msg += "; dropped out: " + sanitize.Line(ev.Text)
		}
		return msg
	}
	return ""
}

// verb is what a model that finished a turn of phase p did.
func verb(p quorum.Phase) string {
	switch p {
	case quorum.PhaseAnswer:
		return "answered"
	case quorum.PhaseReview:
		return "reviewed"
	case quorum.PhaseSynthesis:
		return "wrote the synthesis"
	case quorum.PhasePropose:
		return "proposed a plan"
	case quorum.PhaseVote:
		return "voted"
	case quorum.PhaseVerdict:
		return "gave the verdict"
	case quorum.PhaseInspect:
		return "reviewed the change"
	}
	if _, ok := p.Round(); ok || p == quorum.PhaseOpening {
		return "argued"
	}
	return "finished"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
