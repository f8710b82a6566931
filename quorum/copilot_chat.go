package quorum

import (
	"context"
	"errors"

	"github.com/quorum-go/quorum/copilot"
)

// What a Chat needs of Copilot beyond Backend: a kept session's id (to
// save it), leaving it on the CLI (Chat.Detach), and taking it up again
// by id (ResumeChat). Chat finds these methods by interface assertion, so
// another Backend can offer them too.

// SessionID is the CLI's id of the session.
func (c *copilotConversation) SessionID() string { return c.s.ID() }

// Detach stops the session on the CLI and leaves it on disk, where
// Resume can take it up again (Close deletes it).
func (c *copilotConversation) Detach(ctx context.Context) error { return c.s.Destroy(ctx) }

// Resume takes up the session id that the CLI keeps (live on this
// connection, or saved on disk), configured as Open configures a new one.
// A session the CLI no longer has fails.
func (b copilotBackend) Resume(ctx context.Context, id string, o OpenOptions) (Conversation, error) {
	if b.c == nil {
		return nil, errors.New("quorum: Copilot was given a nil *copilot.Client; start one with copilot.Start or copilot.Connect")
	}
	if o.Tools != nil {
		return nil, errors.New("quorum: only a conversation that only talks can be resumed")
	}
	s, err := b.c.ResumeSession(ctx, id, copilot.SessionConfig{
		Model:         o.Model,
		SystemMessage: o.SystemMessage,
		BuiltinTools:  copilot.NoBuiltinTools(),
		Permissions:   copilot.DenyAll,
	})
	if err != nil {
		return nil, err
	}
	return &copilotConversation{s: s}, nil
}
