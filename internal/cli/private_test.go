package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/runquorum"
)

// A transcript holds every answer: only its owner may read it, also when
// the file existed before with wider permissions.
func TestTranscriptIsPrivate(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.jsonl")
	existing := filepath.Join(dir, "existing.jsonl")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fresh, existing} {
		f, err := runquorum.CreatePrivate(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 || st.Size() != 0 {
			t.Errorf("%s: mode %v, size %d", filepath.Base(p), st.Mode().Perm(), st.Size())
		}
	}
}
