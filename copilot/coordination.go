package copilot

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/quorum-go/quorum/session"
)

// A session's coordination, all of it: who reads the session's channel
// (handover) and what one turn leaves for the next (turnState). Every
// ordering rule between a Stream turn, the dispatcher that reads between
// turns (dispatch.go) and an abort in flight is stated here, on the type it
// belongs to, and nowhere else.

// handover passes a session's channel between its readers: a turn
// (StreamPrompt, which reads its own turn) and the dispatcher, a goroutine
// that reads what arrives between turns (dispatch.go). Invariants:
//
//  1. One reader at a time: whoever holds token reads the channel, and
//     only it. A turn takes the token with acquire, waiting; the
//     dispatcher takes it without waiting, or not at all (a turn that
//     holds it reads what comes).
//  2. A turn never waits for more than one message: the dispatcher looks
//     at wanted between messages and gives the token back as soon as a
//     turn waits for it. (Handling a permission request only starts its
//     policy, on a goroutine of its own; it waits only while the session's
//     maxPolicyCalls policies all run.)
//  3. No message waits unread while nobody reads. After every delivery the
//     router calls wake (the channel's delivery hook); a holder's release
//     wakes for what came while it held the token; the dispatcher clears
//     running before its last look at the channel, so a message delivered
//     meanwhile is either seen by that look or finds running clear and
//     starts another dispatcher.
//  4. At most one dispatcher goroutine is under way (running), and none
//     while nothing waits: an idle session holds no goroutine
//     (BENCHMARKS.md: footprint per idle session).
//  5. Once handed over (Session.Channel), no dispatcher starts or reads:
//     the caller is the only reader between turns. A turn still takes the
//     token and reads its own turn.
//  6. The dispatcher stops reading once the client is closed; wake starts
//     none then (Client.spawn refuses).
type handover struct {
	ch     *session.Channel
	client *Client
	// handle is what the dispatcher does with each message it reads
	// (Session.between), holding the token.
	handle func(context.Context, session.Message)

	token      chan struct{} // one slot: full while a reader holds the channel
	running    atomic.Bool   // a dispatcher goroutine is under way
	wanted     atomic.Int32  // turns waiting in acquire
	handedOver atomic.Bool   // the caller took the channel (invariant 5)
}

func newHandover(ch *session.Channel, client *Client, handle func(context.Context, session.Message)) *handover {
	return &handover{ch: ch, client: client, handle: handle, token: make(chan struct{}, 1)}
}

// start makes the channel's deliveries wake the dispatcher, and reads what
// arrived before (session.start, as often as not).
func (h *handover) start() {
	h.ch.SetNotify(h.wake)
	h.wake()
}

// handOver gives the channel to the caller for good (invariant 5).
func (h *handover) handOver() {
	h.handedOver.Store(true)
	h.ch.SetNotify(nil)
}

// acquire takes the channel for a turn, waiting for the dispatcher to
// finish the message it handles (invariant 2), or for ctx.
func (h *handover) acquire(ctx context.Context) error {
	h.wanted.Add(1)
	defer h.wanted.Add(-1)
	select {
	case h.token <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives the channel back, and wakes the dispatcher for what came
// while it was held (invariant 3).
func (h *handover) release() {
	<-h.token
	if h.pending() {
		h.wake()
	}
}

// wake starts the dispatcher unless one runs, a reader holds the channel,
// or the caller took it. It runs on the router's reader: it never blocks.
func (h *handover) wake() {
	// While a turn (or a dispatcher) holds the channel, it reads what came:
	// starting a goroutine only to find the channel taken would cost one
	// per event of every turn. The holder's release wakes us for what is
	// left; the delivery came before this look, so release sees it.
	if len(h.token) > 0 || h.handedOver.Load() || !h.running.CompareAndSwap(false, true) {
		return
	}
	if !h.client.spawn(h.dispatch) {
		h.running.Store(false) // the client is closed: a turn will say so
	}
}

// dispatch is the dispatcher: it reads what is buffered while no turn
// wants the channel, then ends.
func (h *handover) dispatch() {
	for {
		took := h.readBuffered()
		h.running.Store(false)
		// Ending while messages wait is right only if a turn holds the
		// channel: its release wakes a dispatcher, and running, cleared
		// before this look, lets that wake start one.
		if !h.pending() || (!took && len(h.token) > 0) || h.client.ctx.Err() != nil {
			return // nothing to read, a turn will wake us, or the client closed
		}
		if !h.running.CompareAndSwap(false, true) {
			return
		}
	}
}

// pending says whether messages wait that the dispatcher should read.
func (h *handover) pending() bool {
	n, _ := h.ch.Buffered()
	return n > 0 && !h.handedOver.Load()
}

// readBuffered takes the channel, unless a turn has it (took is false),
// and handles what is buffered until the channel is empty or a turn wants
// it.
func (h *handover) readBuffered() (took bool) {
	select {
	case h.token <- struct{}{}:
	default:
		return false
	}
	defer func() { <-h.token }()
	// What is handled between turns answers for the session: its handlers'
	// context ends with the session's channel (scope.go), which the
	// client's Close ends too, by stopping the router.
	ctx := h.ch.Context()
	for !h.handedOver.Load() && h.wanted.Load() == 0 && h.client.ctx.Err() == nil {
		m, ok, err := h.ch.TryReceive()
		if !ok || err != nil {
			break
		}
		h.handle(ctx, m)
	}
	return true
}

// turnState is what a session's turns share: the lock that runs one Stream
// at a time, and what a turn, or the work between turns, leaves for the
// next. Invariants:
//
//  1. One Stream at a time: it holds lock for its whole length (lockTurn),
//     and the channel's token (handover) while it reads.
//  2. unfinished, abort and betweenTurns are read and written only by the
//     holder of the channel's token: a turn, or the dispatcher. The token
//     orders every access, so they need no lock of their own.
//  3. unfinished is set from the moment a turn's send may have started a
//     turn on the CLI (or the tool-call limit aborted the work between
//     turns) until its session.idle is read, or until a drain hears nothing
//     for drainQuiet. While it is set, the dispatcher refuses what the CLI
//     still asks (the caller is gone), and the next turn first drains the
//     rest (drainTurn), so that the old turn's end cannot end the new one.
//  4. abort is the done signal of an abort in flight (abortAfterCancel).
//     The next turn does not start while it is open (acquireAfterAbort),
//     so that the abort cannot stop the new turn instead; the Stream that
//     started it waits for it too, up to abortWait, before it returns
//     (awaitAbort). Both wait without the token, so that the dispatcher
//     goes on answering what the CLI asks meanwhile.
//  5. betweenTurns counts the tool calls that come between Stream turns
//     (of a turn started with Send, or of a background agent) since the
//     last session.idle, so that SessionConfig.MaxToolCalls bounds them as
//     it bounds a Stream turn's; a Stream turn resets it, as it counts
//     every call itself.
type turnState struct {
	lock         chan struct{} // one slot: full while a Stream runs
	unfinished   bool          // a turn's rest is still to be read (invariant 3)
	abort        chan struct{} // closed when the abort in flight is done; nil when none (invariant 4)
	betweenTurns *toolCount    // nil until the first call between turns (invariant 5)
}

func newTurnState() turnState { return turnState{lock: make(chan struct{}, 1)} }

// lockTurn waits for the turn before this one to end, or for ctx.
func (t *turnState) lockTurn(ctx context.Context) error {
	select {
	case t.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unlockTurn lets the next turn start.
func (t *turnState) unlockTurn() { <-t.lock }

// abortWait bounds how long a turn whose caller gave up waits, before it
// returns, for the CLI to answer its abort (abortBeforeReturn). The CLI
// answers in milliseconds; the bound is for one that does not answer at
// all, which the abort's own limit (5 s) then ends in the background.
const abortWait = time.Second

// awaitAbort waits, up to abortWait, for the abort a turn whose caller
// gave up has started (aborting; nil when none) to be answered, so that a
// caller that cancels and then exits has still stopped the turn, and its
// spending, on the CLI. Stream calls it after giving the channel back: the
// dispatcher goes on answering what the CLI asks meanwhile (turnState
// invariant 4).
func (s *Session) awaitAbort(aborting <-chan struct{}) {
	if aborting == nil {
		return
	}
	wait := time.NewTimer(abortWait)
	defer wait.Stop()
	select {
	case <-aborting:
	case <-wait.C:
		s.log.Debug().Dur("waited", abortWait).Msg("the CLI has not answered the abort yet; it completes in the background")
	}
}

// abortAfterCancel stops a turn whose caller gave up, or work the
// tool-call limit stopped between turns, within a bounded time. The abort
// runs on a goroutine of its own; turns.abort is closed when it has
// completed. The next turn waits for it (acquireAfterAbort), and so does
// the Stream that started it, a short while, before it returns
// (awaitAbort). The caller holds the channel's token.
func (s *Session) abortAfterCancel() {
	aborted := make(chan struct{})
	s.turns.abort = aborted
	started := s.client.spawn(func() {
		defer close(aborted)
		ctx, cancel := context.WithTimeout(s.client.ctx, 5*time.Second)
		defer cancel()
		if err := s.Abort(ctx); err != nil {
			s.log.Debug().Err(err).Msg("aborting a cancelled turn")
		}
	})
	if !started {
		close(aborted) // the client is closed: nothing left to abort
	}
}

// acquireAfterAbort takes the channel for a turn once no abort is in
// flight (turnState invariant 4). It waits for one without the token, so
// that meanwhile the dispatcher goes on answering what the CLI asks (it
// may not answer the abort before), and looks again once it has the token
// back: the dispatcher may have started another.
func (s *Session) acquireAfterAbort(ctx context.Context) error {
	for {
		if err := s.reader.acquire(ctx); err != nil {
			return err
		}
		pending := s.turns.abort
		if pending == nil {
			return nil
		}
		select {
		case <-pending:
			s.turns.abort = nil // done: no other can have started while we held the token
			return nil
		default:
		}
		s.reader.release()
		select {
		case <-pending:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
