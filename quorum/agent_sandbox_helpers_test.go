package quorum_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

// The escape test's helpers: a Backend offering bypass, a listener that
// notes a connection, and snapshots of folders outside the worktree.

// offerBypass is a Backend that lets the CLI offer to run refused calls
// outside the sandbox, so the gate's denial of each can be seen.
type offerBypass struct{ quorum.Backend }

func (o offerBypass) Open(ctx context.Context, opts quorum.OpenOptions) (quorum.Conversation, error) {
	if opts.Tools != nil && opts.Tools.Sandbox != nil {
		sb := *opts.Tools.Sandbox
		sb.AllowBypass = true
		tools := *opts.Tools
		tools.Sandbox = &sb
		opts.Tools = &tools
	}
	return o.Backend.Open(ctx, opts)
}

func acceptAll(ln net.Listener, connected *atomic.Bool) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		connected.Store(true)
		c.Close()
	}
}

// dirSnapshot is every file below a folder and its contents.
type dirSnapshot struct {
	dir   string
	files map[string]string
}

func snapshotDir(t *testing.T, dir string) dirSnapshot {
	t.Helper()
	s := dirSnapshot{dir: dir, files: map[string]string{}}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			s.files[p] = string(b)
		}
		return nil
	})
	return s
}

func (s dirSnapshot) unchanged(t *testing.T) {
	t.Helper()
	now := snapshotDir(t, s.dir)
	for p, v := range now.files {
		if old, ok := s.files[p]; !ok || old != v {
			t.Errorf("%s changed under %s", p, s.dir)
		}
	}
	for p := range s.files {
		if _, ok := now.files[p]; !ok {
			t.Errorf("%s was removed", p)
		}
	}
}

// nohooksGlob matches the empty hooks folders quorum once made in the
// host's /tmp, where an executor could plant a hook; it makes none now.
const nohooksGlob = "/tmp/quorum-nohooks-*"

// nohooks are the folders nohooksGlob matched before a run (older builds
// on the machine may have left some).
type nohooks []string

func nohooksDirs(t *testing.T) nohooks {
	t.Helper()
	m, err := filepath.Glob(nohooksGlob)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// noneNew fails if the run made a folder nohooksGlob matches.
func (before nohooks) noneNew(t *testing.T) {
	t.Helper()
	for _, d := range nohooksDirs(t) {
		if !slices.Contains(before, d) {
			t.Errorf("the run made %s in the host's /tmp, where an executor could plant a hook", d)
		}
	}
}
