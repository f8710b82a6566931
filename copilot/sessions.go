package copilot

import (
	"context"
	"fmt"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The sessions the CLI keeps on disk, whoever created them: listed,
// looked up, deleted. These are methods outside the CLI's schema
// (session.list and its kin, typed by hand in package protocol's
// offschema.go), which CLI 1.0.102 serves; each goes to the current
// connection, waiting for a restart in progress.

// ListSessions lists the sessions the CLI keeps on disk: those of this
// client that have had a message, destroyed ones among them (Destroy only
// disconnects), and those of earlier runs. Delete removes one.
func (c *Client) ListSessions(ctx context.Context) ([]protocol.SessionListEntry, error) {
	var res protocol.SessionListResult
	if err := c.call(ctx, protocol.MethodSessionList, struct{}{}, &res); err != nil {
		return nil, fmt.Errorf("copilot: listing sessions: %w", err)
	}
	return res.Sessions, nil
}

// SessionMetadata returns what the CLI keeps about session id. It is nil,
// with no error, for a session the CLI has not written to disk (one that
// has had no message yet) or does not know.
func (c *Client) SessionMetadata(ctx context.Context, id string) (*protocol.SessionListEntry, error) {
	if err := requireID("reading the metadata of a session", id); err != nil {
		return nil, err
	}
	var res protocol.SessionMetadataResult
	if err := c.call(ctx, protocol.MethodSessionGetMetadata, protocol.SessionIDParams{SessionID: id}, &res); err != nil {
		return nil, fmt.Errorf("copilot: reading the metadata of session %s: %w", id, err)
	}
	return res.Session, nil
}

// DeleteSession removes session id from the CLI: from disk, from
// ListSessions, and, when it is live, from memory, its turn stopped (seen
// on CLI 1.0.102). For a Session of this client, Session.Delete does the
// same and deregisters it too. A session the CLI does not keep is refused
// with an error wrapping ErrRefused.
func (c *Client) DeleteSession(ctx context.Context, id string) error {
	return deleteSession(ctx, clientCaller{c}, id)
}

// deleteSession is session.delete, its refusal an error.
func deleteSession(ctx context.Context, cl protocol.Caller, id string) error {
	return callOnSession(ctx, cl, protocol.MethodSessionDelete, id, "deleting", "Client.ListSessions lists the sessions it keeps")
}

// callOnSession makes a call about session id that the CLI answers with a
// SuccessResult; its refusal is an error wrapping ErrRefused, with the
// CLI's reason and hint, which says what to do.
func callOnSession(ctx context.Context, cl protocol.Caller, method, id, doing, hint string) error {
	if err := requireID(doing+" a session", id); err != nil {
		return err
	}
	var res protocol.SuccessResult
	if err := cl.Call(ctx, method, protocol.SessionIDParams{SessionID: id}, &res); err != nil {
		return fmt.Errorf("copilot: %s session %s: %w", doing, id, err)
	}
	if !res.Success {
		return fmt.Errorf("copilot: %s session %s: %w: %s (%s)", doing, id, ErrRefused, res.Error, hint)
	}
	return nil
}

// LastSessionID returns the id of the session the CLI last used, to
// resume it (ResumeSession); "" when there is none.
func (c *Client) LastSessionID(ctx context.Context) (string, error) {
	var res protocol.SessionIDResult
	if err := c.call(ctx, protocol.MethodSessionGetLastID, struct{}{}, &res); err != nil {
		return "", fmt.Errorf("copilot: asking for the last session: %w", err)
	}
	return res.SessionID, nil
}

// ForegroundSessionID returns the id of the session a CLI in TUI+server
// mode (`copilot --ui-server`) shows; "" when it shows none, and always
// for a headless CLI, such as the one Start runs.
func (c *Client) ForegroundSessionID(ctx context.Context) (string, error) {
	var res protocol.SessionIDResult
	if err := c.call(ctx, protocol.MethodSessionGetForeground, struct{}{}, &res); err != nil {
		return "", fmt.Errorf("copilot: asking for the foreground session: %w", err)
	}
	return res.SessionID, nil
}

// SetForegroundSessionID asks a CLI in TUI+server mode to show session
// id. A headless CLI, such as the one Start runs, refuses, with an error
// wrapping ErrRefused that carries its reason.
func (c *Client) SetForegroundSessionID(ctx context.Context, id string) error {
	return callOnSession(ctx, clientCaller{c}, protocol.MethodSessionSetForeground, id, "showing",
		"only a CLI started with --ui-server has a foreground session")
}

// requireID refuses an empty session id before anything is sent: the CLI
// would answer with a refusal that does not say the id was missing.
func requireID(doing, id string) error {
	if id == "" {
		return fmt.Errorf("%w (%s)", ErrNoSessionID, doing)
	}
	return nil
}
