package quorum_test

import (
	"slices"
	"testing"

	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// TestChatRoundsLeaveOnlyTheKeptSessions: the fresh sessions of every
// round (reviews, the synthesis) are deleted, not merely disconnected:
// after three rounds the server keeps, live and on disk, the models' kept
// sessions and nothing else, the client routes only them, and Close
// leaves nothing. (Measured when looking for what a long chat retains: a
// session left on disk would keep its whole history in the in-process
// simulator, and in the real CLI's state directory, for every round.)
func TestChatRoundsLeaveOnlyTheKeptSessions(t *testing.T) {
	e := newEnv(t, participants()...)
	ctx := ctxGuard(t)
	c, err := quorum.NewChat(e.b, chatConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Should we shard the database?", "And read replicas?", "Which first?"} {
		if _, err := c.Discuss(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var kept []string
	for _, s := range c.Sessions() {
		kept = append(kept, s.ID)
	}
	slices.Sort(kept)
	if len(kept) != len(simquorum.Participants) {
		t.Fatalf("kept sessions %v, want one per participant", kept)
	}
	if live := e.srv.LiveSessions(); !slices.Equal(live, kept) {
		t.Errorf("live on the server: %v, want the kept %v", live, kept)
	}
	listed, err := e.c.ListSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, s := range listed {
		onDisk = append(onDisk, s.SessionID)
	}
	slices.Sort(onDisk)
	if !slices.Equal(onDisk, kept) {
		t.Errorf("on disk: %v, want the kept %v", onDisk, kept)
	}
	if n := e.c.Router().Stats().Sessions; n != len(kept) {
		t.Errorf("the client routes %d sessions, want the %d kept", n, len(kept))
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	e.requireClean(t)
	if listed, err := e.c.ListSessions(ctx); err != nil || len(listed) != 0 {
		t.Errorf("on disk after Close: %v, %v", listed, err)
	}
	if n := e.c.Router().Stats().Sessions; n != 0 {
		t.Errorf("the client routes %d sessions after Close", n)
	}
}
