package quorum

import (
	"context"
	"errors"
	"strings"
	"sync"
)

// A Chat's kept sessions: the first phase of each round goes to them,
// the other phases to fresh sessions; a resumed chat takes them up again.

// keptPhases are the phases whose turns go to the models' kept sessions:
// the first of each strategy, where every model speaks as itself on the
// round's topic.
var keptPhases = []Phase{PhaseAnswer, PhasePropose, PhaseOpening, PhaseInspect}

// keptPhaseOf tells whether prompt belongs to a kept phase, by the marker
// quorum starts every prompt with (PromptMarker).
func keptPhaseOf(prompt string) bool {
	for _, p := range keptPhases {
		if strings.HasPrefix(prompt, PromptMarker(p)+"\n") || prompt == PromptMarker(p) {
			return true
		}
	}
	return false
}

// chatBackend is the Backend a round's strategy runs on: a turn of a kept
// phase goes to the model's kept session (and Close leaves it open), any
// other turn to a fresh session of the chat's Backend, closed as usual.
// The routing happens at Send, where the prompt's marker tells the phase.
type chatBackend struct {
	c     *Chat
	inner Backend
	round *ChatRound

	mu   sync.Mutex
	used map[string]string // model → kept session id, for the round's record
}

func (cb *chatBackend) Open(ctx context.Context, o OpenOptions) (Conversation, error) {
	return &chatConversation{cb: cb, o: o}, ctx.Err()
}

func (cb *chatBackend) sessions() map[string]string {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	out := make(map[string]string, len(cb.used))
	for k, v := range cb.used {
		out[k] = v
	}
	return out
}

// chatConversation is a conversation a strategy opened through
// chatBackend: decided at its first Send.
type chatConversation struct {
	cb    *chatBackend
	o     OpenOptions
	fresh Conversation // the fresh session of a turn outside the kept phases
}

func (cc *chatConversation) Send(ctx context.Context, prompt string, onDelta func(string)) (Reply, error) {
	if cc.o.Tools == nil && keptPhaseOf(prompt) {
		return cc.cb.sendKept(ctx, cc.o, prompt, onDelta)
	}
	if cc.fresh == nil {
		conv, err := cc.cb.inner.Open(ctx, cc.o)
		if err != nil {
			return Reply{}, err
		}
		if conv == nil {
			return Reply{}, errors.New("quorum: the Backend's Open returned neither a conversation nor an error; fix the Backend")
		}
		cc.fresh = conv
	}
	return cc.fresh.Send(ctx, prompt, onDelta)
}

func (cc *chatConversation) Close(ctx context.Context) error {
	if cc.fresh != nil {
		return cc.fresh.Close(ctx)
	}
	return nil // a kept session stays open for the next round
}

// sendKept sends prompt in o.Model's kept session, opening it if the
// model has none.
func (cb *chatBackend) sendKept(ctx context.Context, o OpenOptions, prompt string, onDelta func(string)) (Reply, error) {
	c := cb.c
	c.mu.Lock()
	if c.closed {
		// A round still running when the chat was closed: no session
		// may open that nothing would close.
		c.mu.Unlock()
		return Reply{}, ErrChatClosed
	}
	ks := c.kept[o.Model]
	if ks == nil {
		ks = &keptSession{}
		c.kept[o.Model] = ks
	}
	closeTimeout := c.cfg.CloseTimeout
	c.mu.Unlock()
	if closeTimeout == 0 {
		closeTimeout = DefaultCloseTimeout
	}

	ks.turn.Lock()
	defer ks.turn.Unlock()
	c.mu.Lock()
	conv, id := ks.conv, ks.id
	c.mu.Unlock()
	if conv == nil {
		var err error
		conv, err = cb.inner.Open(ctx, o)
		if err != nil {
			return Reply{}, err
		}
		if conv == nil {
			return Reply{}, errors.New("quorum: the Backend's Open returned neither a conversation nor an error; fix the Backend")
		}
		id = sessionIDOf(conv)
		c.mu.Lock()
		ks.conv, ks.id, ks.resumed, ks.upTo = conv, id, false, 0
		_ = c.saveLocked(chatRecord{Type: recSessions, Sessions: c.sessionIDsLocked()})
		c.mu.Unlock()
	}
	cb.mu.Lock()
	if cb.used == nil {
		cb.used = map[string]string{}
	}
	cb.used[o.Model] = id
	cb.mu.Unlock()
	reply, err := conv.Send(ctx, prompt, onDelta)
	if err != nil && ctx.Err() == nil {
		// The session itself failed (the provider refused it, the CLI
		// died): close it, and let the model's next round open a new one,
		// told what it missed.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
		_ = conv.Close(cctx)
		cancel()
		c.mu.Lock()
		ks.conv, ks.id, ks.upTo = nil, "", 0
		// Saved as gone, so that a resumed chat does not take up a
		// session the provider may still keep (the CLI keeps a killed
		// CLI's sessions on disk) as if it had seen every round.
		_ = c.saveLocked(chatRecord{Type: recSessions, Sessions: map[string]string{o.Model: ""}})
		c.mu.Unlock()
		cb.mu.Lock()
		delete(cb.used, o.Model)
		cb.mu.Unlock()
	}
	return reply, err
}

// sessionIDsLocked is the id of every kept session that is open.
func (c *Chat) sessionIDsLocked() map[string]string {
	out := map[string]string{}
	for m, ks := range c.kept {
		if ks.conv != nil {
			out[m] = ks.id
		}
	}
	return out
}

// sessionIDOf is the provider's id of conv, "" when it has none.
func sessionIDOf(conv Conversation) string {
	if s, ok := conv.(interface{ SessionID() string }); ok {
		return s.SessionID()
	}
	return ""
}

// lastRoundOf is the last of rounds that model took part in with
// session id, 0 when none did; an interrupted round does not count, as in
// a running chat (see round).
func lastRoundOf(rounds []ChatRound, model, id string) int {
	for i := len(rounds) - 1; i >= 0; i-- {
		if rounds[i].Sessions[model] == id && rounds[i].Status != RoundInterrupted {
			return rounds[i].N
		}
	}
	return 0
}

// resumeKept takes up the saved sessions of models through a Backend
// that can resume (see ResumeChat); the others open anew at their next
// round, told the saved rounds.
func (c *Chat) resumeKept(ctx context.Context, saved map[string]string, models []string) {
	r, ok := c.b.(interface {
		Resume(ctx context.Context, id string, o OpenOptions) (Conversation, error)
	})
	if !ok {
		return
	}
	sys := c.cfg.Prompts.AnswerSystem
	if sys == "" {
		sys = DefaultPrompts().AnswerSystem
	}
	for _, m := range models {
		id := saved[m]
		if id == "" {
			continue
		}
		conv, err := r.Resume(ctx, id, OpenOptions{Model: m, SystemMessage: sys})
		if err != nil || conv == nil {
			continue // gone from the provider: a new session, given the rounds
		}
		c.kept[m] = &keptSession{conv: conv, id: id, resumed: true, upTo: lastRoundOf(c.rounds, m, id)}
	}
}
