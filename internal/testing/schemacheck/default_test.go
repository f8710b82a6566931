package schemacheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hangGuard bounds waits so a bug fails a test instead of hanging it; it
// is never a timing assertion.
const hangGuard = 20 * time.Second

// The schemas of an installed CLI that has not unpacked itself yet are
// waited for; an absent CLI is not (nothing will unpack them), and a wait
// that runs out says why.
func TestAwaitSchemas(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "schemas")
	t.Setenv("COPILOT_CLI_PATH", "/bin/true") // an installed CLI

	if err := awaitSchemas(dir, 0); err == nil || !strings.Contains(err.Error(), "did not appear") {
		t.Fatalf("no schemas and no time to wait: %v", err)
	}

	done := make(chan error, 1)
	go func() { done <- awaitSchemas(dir, hangGuard) }()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{apiFile, eventsFile} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("the schemas appeared: %v", err)
	}

	t.Setenv("COPILOT_CLI_PATH", filepath.Join(t.TempDir(), "no-such-cli"))
	t.Setenv("QUORUM_CACHE", t.TempDir())
	if err := awaitSchemas(filepath.Join(t.TempDir(), "none"), hangGuard); err != nil {
		t.Fatalf("no CLI: %v; want no wait and Load's error", err)
	}
}
