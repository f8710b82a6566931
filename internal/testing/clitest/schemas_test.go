package clitest

import (
	"os"
	"path/filepath"
	"testing"
)

// A CLI named by COPILOT_CLI_PATH whose cache was never warmed up (a fresh
// QUORUM_CACHE: a machine without ~/.cache/quorum) gets its schemas
// unpacked by SchemaDir, at once, instead of being waited for until a
// test's deadline: the tests given a CLI run it once themselves.
func TestSchemaDirUnpacksAnEmptyCache(t *testing.T) {
	bin, err := Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	// A copy elsewhere, as `npm install -g` leaves it: nothing ties it to
	// the project's cache.
	body, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copilot")
	if err := os.WriteFile(copied, body, 0o755); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("COPILOT_CLI_PATH", copied)
	t.Setenv("QUORUM_CACHE", cache)
	dir, err := SchemaDir()
	if err != nil {
		t.Fatal(err)
	}
	if !hasSchemas(dir) {
		t.Fatalf("SchemaDir returned %s, which holds no schemas", dir)
	}
	if want := filepath.Join(cache, "xdg", "copilot", "pkg"); filepath.Dir(filepath.Dir(filepath.Dir(dir))) != want {
		t.Errorf("schemas in %s, want them under the fresh cache's %s (where OfflineEnv points the CLI)", dir, want)
	}
}
