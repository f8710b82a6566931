package quorum_test

import (
	"path/filepath"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// A chat on a simulator is saved as one (ChatConfig.Simulated), so that
// what lists or prints it later can say so; resumed without the mark, or
// with its models changed, it stays marked: some of its answers are the
// simulator's. A chat not marked is saved without it.
func TestChatSimulatedIsSavedAndKept(t *testing.T) {
	e := newEnv(t, participants()...)
	ctx := ctxGuard(t)
	dir := filepath.Join(t.TempDir(), "chats")
	cfg := chatConfig()
	cfg.Dir, cfg.Simulated = dir, true
	c, err := quorum.NewChat(e.b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c2, err := quorum.ResumeChat(ctx, e.b, quorum.ChatConfig{Dir: dir}, c.ID())
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.SetModels(cfg.Models[:2], ""); err != nil {
		t.Fatal(err)
	}
	if err := c2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	saved, err := quorum.LoadChat(dir, c.ID())
	if err != nil || !saved.Simulated {
		t.Errorf("the simulated chat, resumed and its models changed, loads as simulated %v (%v)", saved != nil && saved.Simulated, err)
	}

	plain := chatConfig()
	plain.Dir = dir
	c3, err := quorum.NewChat(e.b, plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := c3.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if saved, err := quorum.LoadChat(dir, c3.ID()); err != nil || saved.Simulated {
		t.Errorf("a chat not marked loads as simulated %v (%v)", saved != nil && saved.Simulated, err)
	}
	e.requireClean(t)
}
