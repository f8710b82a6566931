package quorum

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// This file is Chat: a conversation with a quorum over several rounds, on
// sessions it keeps. chat_rounds.go runs its rounds, chat_compose.go
// composes what each round is told of the earlier ones, chat_sessions.go
// routes the rounds' turns to the kept sessions, chat_store.go saves and
// loads it; copilot_chat.go lets Copilot's sessions be resumed and
// detached.

var (
	// ErrChatClosed reports a round asked of a Chat after Close or Detach.
	ErrChatClosed = errors.New("quorum: the chat is closed")
	// ErrRoundRunning reports a round asked while another round of the
	// same Chat runs: a chat's rounds build on one another, one at a time.
	ErrRoundRunning = errors.New("quorum: a round of this chat is already running")
)

// PhaseAsk is the phase of a Chat's Ask round: one model, one turn, in its
// kept session.
const PhaseAsk Phase = "ask"

// RoundKind is what a Chat's round ran.
type RoundKind string

// The kinds of round.
const (
	RoundDiscuss RoundKind = "discuss"
	RoundPlan    RoundKind = "plan"
	RoundDebate  RoundKind = "debate"
	RoundReview  RoundKind = "review"
	RoundAsk     RoundKind = "ask"
	RoundAgent   RoundKind = "agent"
)

// A round's Status: as the quorum command's JSON envelope has it.
const (
	RoundOK          = "ok"
	RoundDegraded    = "degraded"
	RoundFailed      = "failed"
	RoundInterrupted = "interrupted"
)

// ChatConfig configures a Chat.
type ChatConfig struct {
	// Config is used for every round (Models and Moderator can change
	// between rounds: Chat.SetModels). Its Progress receives every round's
	// events, with the contract of Config.Progress, each round's last
	// event delivered before the round returns.
	Config
	// Dir, when set, is where the chat is saved as it goes, one JSON
	// object a line: Dir/ID.jsonl, mode 0600, Dir created 0700 if need be.
	// ChatDir is the usual place. Empty: the chat is not saved.
	Dir string
	// ID names a new chat (letters, digits, '-' and '_'); empty makes one
	// from the time and a random suffix.
	ID string
	// Simulated marks a chat whose Backend is a simulator (the quorum
	// command's --sim): it is saved with the chat, so that what lists or
	// prints the chat later can say that its answers are not real models'.
	// A chat resumed stays simulated once it was.
	Simulated bool
}

// ChatRound is one round of a Chat: what was asked, of whom, what came
// back and what it concluded. Exactly one of Discuss, Plan, Debate, Review,
// Ask and Agent is set (none when the round could not start).
type ChatRound struct {
	// N counts the chat's rounds from 1.
	N    int       `json:"n"`
	Kind RoundKind `json:"kind"`
	// Prompt is what the user asked, as given; Sent is the text the
	// strategy got (the question, task, claim; for a review the
	// conversation is a context file): Prompt after what earlier rounds
	// concluded.
	Prompt    string   `json:"prompt"`
	Sent      string   `json:"sent"`
	Models    []string `json:"models"`
	Moderator string   `json:"moderator,omitempty"`
	// Status is ok, degraded, failed or interrupted (the caller cancelled
	// the round: turns aborted, what came in kept).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Conclusion is what the round concluded, as the next round's prompt
	// carries it: the synthesis, the winning plan, the verdict, the
	// merged findings, the model's reply, what the agent did. Empty when it
	// concluded nothing.
	Conclusion string         `json:"conclusion"`
	Discuss    *DiscussResult `json:"discuss,omitempty"`
	Plan       *PlanResult    `json:"plan,omitempty"`
	Debate     *DebateResult  `json:"debate,omitempty"`
	Review     *ReviewResult  `json:"review,omitempty"`
	Ask        *ChatAnswer    `json:"ask,omitempty"`
	Agent      *AgentResult   `json:"agent,omitempty"`
	// Sessions maps each model whose kept session took the round's
	// first phase to that session's id ("" when the provider has none).
	Sessions  map[string]string `json:"sessions"`
	StartedAt time.Time         `json:"startedAt"`
	ElapsedMS int64             `json:"elapsedMs"`
	Usage     Usage             `json:"usage"`
}

// ChatAnswer is the reply of an Ask round.
type ChatAnswer struct {
	Model string `json:"model"`
	Text  string `json:"text"`
	Error string `json:"error,omitempty"`
	TurnCost
}

// ChatSession is one model's kept session, as Chat.Sessions reports it.
type ChatSession struct {
	Model string `json:"model"`
	// ID is the provider's id of the session; "" while none is open (it
	// opens at the model's next round) or when the provider has no ids.
	ID string `json:"id"`
	// Resumed is true for a session taken up again by ResumeChat.
	Resumed bool `json:"resumed"`
}

// Chat is a conversation with a quorum: rounds of discussion, planning,
// debate, review, or a question to one model, each building on what the
// earlier ones concluded.
//
// Every model keeps one conversation with the provider (a kept session)
// for the whole chat: the first phase of each round (the answers of a
// discussion, the proposals of a plan, the opening of a debate, the
// inspection of a review) and Ask go to it, so each model keeps its own
// context; the later phases (reviews, votes, the synthesis, debate
// rounds, the verdict) run in fresh sessions as in a single run, since
// their prompts carry what they need. A round's prompt carries what the
// previous round concluded, and what any earlier round concluded that one
// of its participants did not take part in (a model added later, a
// session opened anew, an Ask to another model).
//
// A kept session that fails (not a cancellation: an error of the
// provider) is closed, and the model's next round opens a new one, given
// the earlier rounds as context. A cancelled round aborts its turns,
// keeps what came in, is marked interrupted, and the chat goes on.
//
// Concurrency: a Chat runs one round at a time (ErrRoundRunning
// otherwise); its other methods may be called from any goroutine, also
// while a round runs, except Close and Detach, which wait for the round's
// turns to end (cancel the round first).
type Chat struct {
	b Backend

	mu      sync.Mutex // guards the fields below; never held during a turn
	cfg     ChatConfig
	id      string
	created time.Time
	rounds  []ChatRound
	kept    map[string]*keptSession
	running bool
	closed  bool
	log     *chatLog // nil: not saved
}

// keptSession is one model's conversation, kept across rounds. turn is
// held for a turn, so that a session takes one turn at a time and Close
// waits for it; the fields are the Chat's, guarded by Chat.mu, so that
// reading them (Sessions, a round's prompt) never waits for a turn.
type keptSession struct {
	turn    sync.Mutex
	conv    Conversation
	id      string
	resumed bool
	// upTo is the last of the chat's rounds (counted from 1) this session
	// took part in, 0 for none: it has seen what the rounds before it
	// concluded, not what that round and the later ones did.
	upTo int
}

// NewChat starts a chat on b. Nothing is opened until the first round;
// with cfg.Dir set the chat's file is created now.
func NewChat(b Backend, cfg ChatConfig) (*Chat, error) {
	if b == nil {
		return nil, invalid("the Backend is nil; pass quorum.Copilot(client) or another Backend")
	}
	if _, err := cfg.Config.settle(); err != nil {
		return nil, err
	}
	id := cfg.ID
	if id == "" {
		id = newChatID(time.Now())
	} else if err := checkChatID(id); err != nil {
		return nil, err
	}
	c := &Chat{b: b, cfg: cfg, id: id, created: time.Now(), kept: map[string]*keptSession{}}
	if cfg.Dir != "" {
		l, err := createChatLog(cfg.Dir, id)
		if err != nil {
			return nil, err
		}
		c.log = l
		if err := l.write(chatRecord{Type: recChat, Chat: c.infoLocked()}); err != nil {
			l.close()
			return nil, err
		}
	}
	return c, nil
}

// newChatID is a chat id that sorts by time: 20261125-093001-1a2b3c.
func newChatID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// checkChatID refuses ids that are not plain file names.
func checkChatID(id string) error {
	if id == "" || len(id) > 100 {
		return fmt.Errorf("%w: a chat id has 1 to 100 characters (%q)", ErrInvalidConfig, id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return fmt.Errorf("%w: a chat id has only letters, digits, '-' and '_' (%q)", ErrInvalidConfig, id)
		}
	}
	return nil
}

// ID is the chat's id, the name it is saved under.
func (c *Chat) ID() string { return c.id }

// Path is the chat's file, "" when it is not saved.
func (c *Chat) Path() string {
	if c.log == nil {
		return ""
	}
	return c.log.path
}

// Rounds returns a copy of the rounds so far, in order.
func (c *Chat) Rounds() []ChatRound {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.rounds)
}

// Models returns the participants and the moderator of the next round.
func (c *Chat) Models() (models []string, moderator string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.cfg.Models), c.cfg.Moderator
}

// SetModels changes the participants and the moderator of the next
// rounds ("": the first participant). A model new to the chat gets a
// session at its first round, told what the chat concluded so far; a
// model left out keeps its session for when it comes back.
func (c *Chat) SetModels(models []string, moderator string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg := c.cfg.Config
	cfg.Models, cfg.Moderator = slices.Clone(models), moderator
	if _, err := cfg.settle(); err != nil {
		return err
	}
	c.cfg.Models, c.cfg.Moderator = cfg.Models, cfg.Moderator
	return c.saveLocked(chatRecord{Type: recModels, Chat: c.infoLocked()})
}

// Sessions reports each model's kept session, in model order.
func (c *Chat) Sessions() []ChatSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []ChatSession
	for _, m := range slices.Sorted(maps.Keys(c.kept)) {
		ks := c.kept[m]
		out = append(out, ChatSession{Model: m, ID: ks.id, Resumed: ks.resumed})
	}
	return out
}

// Usage sums every round's usage.
func (c *Chat) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var u Usage
	for _, r := range c.rounds {
		u.Add(r.Usage)
	}
	return u
}

// Close ends the chat: every kept session is closed on the provider's side
// (for Copilot, deleted), and the chat's file closed; the file stays, so
// ResumeChat can continue the conversation in new sessions given the saved
// rounds. It waits for a round's turns in flight to end: cancel the round
// first. Calling it again does nothing.
func (c *Chat) Close(ctx context.Context) error {
	return c.end(ctx, false)
}

// Detach ends the chat like Close but leaves the kept sessions on the
// provider's side where it can (a Backend whose conversations have a
// Detach method: for Copilot the CLI keeps them on disk), so that
// ResumeChat takes them up again by id, each model with its own context.
func (c *Chat) Detach(ctx context.Context) error {
	return c.end(ctx, true)
}

func (c *Chat) end(ctx context.Context, detach bool) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	kept := c.kept
	c.kept = map[string]*keptSession{}
	c.mu.Unlock()
	var errs []error
	for _, m := range slices.Sorted(maps.Keys(kept)) {
		ks := kept[m]
		ks.turn.Lock() // a turn still running ends first
		// kept left the Chat above: nothing else reaches ks now.
		if ks.conv != nil {
			var err error
			if d, ok := ks.conv.(interface{ Detach(context.Context) error }); ok && detach {
				err = d.Detach(ctx)
			} else {
				err = ks.conv.Close(ctx)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("closing %s's session: %w", m, err))
			}
			ks.conv = nil
		}
		ks.turn.Unlock()
	}
	c.mu.Lock()
	if c.log != nil {
		what := recClosed
		if detach {
			what = recDetached
		}
		if err := c.log.write(chatRecord{Type: what}); err != nil {
			errs = append(errs, err)
		}
		if err := c.log.close(); err != nil {
			errs = append(errs, err)
		}
	}
	c.mu.Unlock()
	return errors.Join(errs...)
}

// infoLocked is the chat's header record.
func (c *Chat) infoLocked() *ChatInfo {
	return &ChatInfo{ID: c.id, CreatedAt: c.created, Models: slices.Clone(c.cfg.Models), Moderator: c.cfg.Moderator, Simulated: c.cfg.Simulated}
}

// saveLocked appends rec to the chat's file, if it is saved.
func (c *Chat) saveLocked(rec chatRecord) error {
	if c.log == nil {
		return nil
	}
	return c.log.write(rec)
}
