package copilot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/quorum-go/quorum/copilot/protocol"
	"github.com/quorum-go/quorum/session"
)

// Reply is the outcome of one turn.
type Reply struct {
	MessageID string
	// Text is the main agent's reply.
	Text string
	// AgentText is what sub-agents said during the turn, by the agentId
	// the CLI gave each; their text is never part of Text.
	AgentText map[string]string
	Usage     TurnUsage
	ToolCalls int
	Duration  time.Duration
}

// TurnHandlers observe a turn of Stream: OnDelta and OnAgentDelta get its
// text as it streams, OnEvent every event of the turn, after
// SessionConfig.OnEvent. Each may be nil. They run on the goroutine that
// called Stream. It is the one type for a turn's observers at every level:
// [session.TurnHandlers], which a raw channel's reader gives
// [session.Channel.Next].
type TurnHandlers = session.TurnHandlers

// Ask sends prompt and returns the model's final answer.
func (s *Session) Ask(ctx context.Context, prompt string) (string, error) {
	r, err := s.Stream(ctx, prompt, TurnHandlers{})
	return r.Text, err
}

// Send starts a turn and returns without reading it: its events go to
// SessionConfig.OnEvent, and its tool calls, permission requests and
// requests are answered as Stream's are (or, after Channel, read them
// yourself). SendPrompt sends more than text.
func (s *Session) Send(ctx context.Context, prompt string) (string, error) {
	return s.SendPrompt(ctx, Prompt{Text: prompt})
}

// Stream sends prompt and reads the turn to its end, passing text deltas
// and events to h as they arrive, and answering tool calls and permission
// requests through the session's tools and policy.
//
// When ctx ends mid-turn, Stream sends session.abort and waits for the
// CLI's answer, up to abortWait (one second), before it returns ctx's
// error: once Stream has returned, the CLI has stopped the turn (its model
// request is cancelled), unless it did not answer within that second; the
// abort then completes in the background, and the session's next turn
// waits for it. When the session ends mid-turn — its connection lost, its
// CLI dead, its client or the session closed — Stream returns at once, with
// an error wrapping ErrStopped (and ErrConnectionClosed, ErrCLIExited or
// ErrClosed) or session.ErrClosed, even while a handler runs: every
// handler it calls (tools, Handlers, hooks, the permission policy) gets a
// context that ends with the turn and with the session, its cause
// (context.Cause) saying why.
//
// A turn cut short (its context ended, SessionConfig.TurnInactivity,
// session.ErrTurnTooLarge) leaves the rest of it on the CLI: the session's
// next Stream first reads that rest, up to its session.idle, so that the
// old turn's end cannot end the new one. The CLI sends it within
// milliseconds of the abort. If it never comes (lost on a faulty
// connection: copilottest's DropEvents(EventSessionIdle)), the next Stream
// waits for drainQuiet (2 s) of silence before it sends its prompt, and a
// context shorter than that fails it with the context's error, the prompt
// unsent: give that turn a context longer than 2 s.
//
// StreamPrompt sends more than text.
func (s *Session) Stream(ctx context.Context, prompt string, h TurnHandlers) (Reply, error) {
	return s.StreamPrompt(ctx, Prompt{Text: prompt}, h)
}

// StreamPrompt is Stream for a Prompt: text with attachments, request
// headers and the other options of session.send. A p that Prompt.Validate
// refuses is refused here, before anything is sent.
func (s *Session) StreamPrompt(ctx context.Context, p Prompt, h TurnHandlers) (Reply, error) {
	if err := p.Validate(); err != nil {
		return Reply{}, err
	}
	if err := s.turns.lockTurn(ctx); err != nil {
		return Reply{}, err
	}
	defer s.turns.unlockTurn()
	reply, aborting, err := s.streamTurn(ctx, p, h)
	s.awaitAbort(aborting)
	return reply, err
}

// streamTurn is StreamPrompt holding the channel: it sends p and reads the
// turn. aborting is the abort it started (its caller gave up, or the read
// had to stop), for StreamPrompt to wait for once the channel is given
// back; nil when none.
func (s *Session) streamTurn(ctx context.Context, p Prompt, h TurnHandlers) (_ Reply, aborting <-chan struct{}, _ error) {
	if err := s.acquireAfterAbort(ctx); err != nil {
		return Reply{}, nil, err
	}
	defer func() {
		// acquireAfterAbort cleared the last turn's abort: one here is ours.
		aborting = s.turns.abort
		s.reader.release()
	}()
	// Everything the turn calls gets this context: it ends with the turn
	// (a policy still deciding when the turn failed or was superseded
	// gives up; its answer, if any, still goes out), and with the session
	// (scope.go), so that no handler holds the turn past the session's end.
	ctx, endTurn := s.untilSessionEnds(ctx)
	defer endTurn()
	if s.turns.unfinished {
		if err := s.drainTurn(ctx); err != nil {
			if ended := s.sessionEnded(s.ch.Err()); ended != nil {
				return Reply{}, nil, ended
			}
			return Reply{}, nil, err
		}
	}
	start := time.Now()
	var reply Reply
	id, err := s.send(ctx, p)
	if err != nil {
		if cerr := s.ch.Err(); cerr != nil && ctx.Err() != nil && !errors.Is(err, ErrSuperseded) {
			// The session's end (its client closed, its connection lost)
			// ended the turn's context: say that, not the context.
			err = cerr
		}
		if ctx.Err() != nil && s.ch.Err() == nil {
			// The send went out before the caller gave up, so the turn may
			// be running: stop it, and have the next turn drain what is left.
			s.turns.unfinished = true
			s.abortAfterCancel()
		}
		return reply, nil, fmt.Errorf("copilot: sending to session %s: %w", s.id, err)
	}
	reply.MessageID = id
	s.turns.unfinished = true

	s.turns.betweenTurns = nil // from here, the turn counts every call
	ctx = withToolCount(ctx, &toolCount{})
	var limit *inactivityLimit
	if s.inactivity > 0 {
		var stop func()
		ctx, limit, stop = withInactivity(ctx, s.inactivity)
		defer stop()
	}
	err = s.readTurn(ctx, s.observe(ctx, h, &reply, limit), &reply, limit)
	reply.Duration = time.Since(start)
	return reply, nil, err
}

// observe wraps h with what the session needs to see of every event of a
// turn: SessionConfig.OnEvent, usage to add up, model-switch questions to
// decline. (The CLI's requests are answered by answerRequest, which
// readTurn gives Next beside them.)
func (s *Session) observe(ctx context.Context, h TurnHandlers, reply *Reply, limit *inactivityLimit) *session.TurnHandlers {
	return &session.TurnHandlers{
		OnDelta:      h.OnDelta,
		OnAgentDelta: h.OnAgentDelta,
		OnEvent: func(ev Event) {
			limit.seen()
			s.forwardEvent(ev)
			switch ev.Type {
			case protocol.EventAssistantUsage:
				var u TurnUsage
				if ev.UnmarshalData(&u) == nil {
					reply.Usage.Add(u)
				}
			case protocol.EventAutoModeSwitchRequested:
				// After a rate limit the CLI asks whether to switch models
				// and waits, idle, until answered (see answerModelSwitch).
				s.answerModelSwitch(ctx, ev)
			}
			if h.OnEvent != nil {
				h.OnEvent(ev)
			}
		},
	}
}

// readTurn reads the turn to session.idle, answering the CLI's requests on
// the way, and fills in reply's text and tool-call count. A turn that the
// tool-call limit or a refused permission ended returns that reason rather
// than the CLI's plain abort.
func (s *Session) readTurn(ctx context.Context, handlers *session.TurnHandlers, reply *Reply, limit *inactivityLimit) error {
	var texts []string
	defer func() { reply.Text = strings.Join(texts, "\n\n") }()
	addAgentText := func(m map[string]string) {
		for id, t := range m {
			if reply.AgentText == nil {
				reply.AgentText = map[string]string{}
			}
			reply.AgentText[id] = joinText(reply.AgentText[id], t)
		}
	}
	var limitErr error
	refusals := new(turnRefusals) // what the policy refused, if anything
	for {
		step, err := s.ch.Next(ctx, handlers, s.answerRequest)
		if step.Text != "" {
			texts = append(texts, step.Text)
		}
		addAgentText(step.AgentText)
		if err != nil {
			if !endedAtIdle(err) {
				// The session's end (its connection, its client, a resume)
				// comes first: the turn cannot go on, nor be aborted.
				if ended := s.sessionEnded(s.ch.Err()); ended != nil {
					return ended
				}
			}
			if ctx.Err() != nil {
				s.abortAfterCancel()
				return turnCause(ctx)
			}
			if errors.Is(err, session.ErrTurnTooLarge) {
				// The read stopped; the turn goes on on the CLI: end it.
				s.abortAfterCancel()
				return err
			}
			// Decided on the CLI's own ending, before it is replaced by
			// the reason we gave: the turn is over either way.
			if endedAtIdle(err) {
				s.turns.unfinished = false
			}
			if errors.Is(err, session.ErrAborted) && limitErr != nil {
				err = limitErr
			} else if denied := refusals.first(); errors.Is(err, session.ErrAborted) && denied != "" {
				// The CLI ends the turn when a permission is refused.
				err = fmt.Errorf("%w: %s (the CLI then ends the turn: %w)", ErrPermissionDenied, denied, err)
			}
			return err
		}
		switch {
		case step.Tool != nil:
			reply.ToolCalls++
			limit.pause() // the CLI waits for us: its silence is not inactivity
			err := s.runTool(ctx, step.Tool)
			limit.resume()
			if errors.Is(err, ErrToolLimit) && limitErr == nil {
				limitErr = err
				if aerr := s.Abort(ctx); aerr != nil {
					s.log.Warn().Err(aerr).Msg("aborting after the tool-call limit")
				}
			}
		case step.Permission != nil:
			// The policy runs on a goroutine of its own; the turn reads on.
			s.askPolicy(ctx, step.Permission, limit, refusals.note)
		default:
			s.turns.unfinished = false
			return limitErr
		}
	}
}

// turnRefusals keeps the first request a turn's policy refused (Reject),
// which the CLI ends the turn for: the policies decide on goroutines of
// their own, and the refusal is noted before its answer is sent, so the
// turn's reader, which learns of the end after the CLI had the answer,
// finds it.
type turnRefusals struct {
	mu     sync.Mutex
	denied string
}

func (r *turnRefusals) note(req PermissionRequest, d PermissionDecision) {
	if d.Kind != DecisionReject {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.denied == "" {
		r.denied = permissionLabel(&req)
	}
}

func (r *turnRefusals) first() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.denied
}

// drainQuiet is how long drainTurn waits for the rest of an abandoned turn
// before it concludes that no turn was running (a send that the CLI refused,
// or one whose turn ended before the abort).
const drainQuiet = 2 * time.Second

// drainTurn reads what is left of an unfinished turn, up to session.idle.
func (s *Session) drainTurn(ctx context.Context) error {
	for {
		quiet, cancel := context.WithTimeout(ctx, drainQuiet)
		step, err := s.ch.Next(quiet, &session.TurnHandlers{OnEvent: s.forwardEvent}, s.answerRequest)
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			s.turns.unfinished = false // nothing more came: no turn was left running
			return nil
		}
		if err != nil && !endedAtIdle(err) {
			return err
		}
		switch {
		case step.Tool != nil:
			s.answerTool(ctx, step.Tool, "", forModel("the turn was abandoned"))
		case step.Permission != nil:
			s.answerPermissionKind(ctx, step.Permission, permissionReject)
		default:
			s.turns.unfinished = false
			return nil
		}
	}
}

// endedAtIdle reports whether a turn's error came with its closing
// session.idle (a failed or aborted turn), so nothing of it is left to read.
// Any other error (the caller's context, the channel's end) left it unread.
func endedAtIdle(err error) bool {
	return errors.Is(err, session.ErrTurnFailed) || errors.Is(err, session.ErrAborted)
}

// joinText joins the texts of one agent read in two steps of a turn.
func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
