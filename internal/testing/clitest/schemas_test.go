package clitest

import (
	"os"
	"path/filepath"
	"testing"
)

// A CLI named by COPILOT_CLI_PATH whose cache was never warmed up (a fresh
// QUORUM_CACHE: a machine without ~/.cache/quorum) gets its schemas
// unpacked by SchemaDir, at once, instead of being waited for until a
// test's deadline: the tests given a CLI run it once themselves. Both
// forms `npm install -g @github/copilot` leaves are tried: the platform's
// binary, and the npm loader script `command -v copilot` names.
func TestSchemaDirUnpacksAnEmptyCache(t *testing.T) {
	bin, err := Binary()
	if err != nil {
		t.Fatalf("this test needs the real Copilot CLI: %v", err)
	}
	if isScript(t, bin) {
		// COPILOT_CLI_PATH names the loader itself, which finds its
		// platform package beside it: tried where it is.
		checkSchemaDirUnpacks(t, bin)
		return
	}
	t.Run("binary", func(t *testing.T) {
		// A copy elsewhere: nothing ties it to the project's cache.
		body, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(t.TempDir(), "copilot")
		if err := os.WriteFile(copied, body, 0o755); err != nil {
			t.Fatal(err)
		}
		checkSchemaDirUnpacks(t, copied)
	})
	t.Run("npm loader", func(t *testing.T) {
		// …/node_modules/@github/copilot-linux-x64/copilot → …/node_modules/.bin/copilot,
		// the link npm makes to @github/copilot/npm-loader.js in the
		// layout .ci/install-copilot.sh installs.
		loader := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(bin))), ".bin", "copilot")
		if _, err := os.Stat(loader); err != nil {
			t.Skipf("no npm loader beside %s (not npm's layout): the binary alone was tried", bin)
		}
		checkSchemaDirUnpacks(t, loader)
	})
}

// isScript reports whether the file at path is a script (the npm loader)
// rather than the CLI's binary.
func isScript(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return string(head[:n]) == "#!"
}

// checkSchemaDirUnpacks runs SchemaDir for the CLI at path with a fresh
// cache and checks the schemas are there, under that cache.
func checkSchemaDirUnpacks(t *testing.T, path string) {
	t.Helper()
	cache := t.TempDir()
	t.Setenv("COPILOT_CLI_PATH", path)
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
