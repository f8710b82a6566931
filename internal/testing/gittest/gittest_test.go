package gittest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Unchanged sees each kind of change: a file edited, added or removed,
// the index, and HEAD.
func TestSnapshotSeesEveryChange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		want   string
	}{
		{"edit", func(t *testing.T, dir string) { Write(t, dir, map[string]string{"a.txt": "changed"}) }, "changed: a.txt"},
		{"add", func(t *testing.T, dir string) { Write(t, dir, map[string]string{"new.txt": "x"}) }, "added: new.txt"},
		{"remove", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "a.txt")) }, "removed: a.txt"},
		{"stage", func(t *testing.T, dir string) { Git(t, dir, "add", "dirty.txt") }, "the index changed"},
		{"commit", func(t *testing.T, dir string) { Git(t, dir, "commit", "-q", "--allow-empty", "-m", "x") }, "HEAD moved"},
		{"switch", func(t *testing.T, dir string) { Git(t, dir, "switch", "-q", "-c", "other") }, "HEAD's branch changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := NewRepo(t, map[string]string{"a.txt": "a"})
			Write(t, dir, map[string]string{"dirty.txt": "uncommitted"})
			s := Take(t, dir)
			tc.change(t, dir)
			rec := &recorder{TB: t}
			s.Unchanged(rec)
			if !strings.Contains(rec.msg, tc.want) {
				t.Fatalf("Unchanged reported %q, want it to name %q", rec.msg, tc.want)
			}
		})
	}
}

// An untouched repository passes.
func TestSnapshotUntouched(t *testing.T) {
	dir := NewRepo(t, map[string]string{"a.txt": "a"})
	s := Take(t, dir)
	rec := &recorder{TB: t}
	s.Unchanged(rec)
	if rec.msg != "" {
		t.Fatalf("Unchanged reported %q for an untouched repository", rec.msg)
	}
}

// recorder keeps a failure's message instead of failing the test.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Errorf(format string, args ...any) { r.msg += fmt.Sprintf(format, args...) }
func (r *recorder) Helper()                           {}
