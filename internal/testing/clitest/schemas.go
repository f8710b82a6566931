package clitest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// SchemaDir returns where the CLI [Binary] names keeps its protocol schemas
// (api.schema.json, session-events.schema.json). The CLI unpacks them on its
// first run into $XDG_CACHE_HOME/copilot/pkg/<platform>/<version>/schemas,
// with XDG_CACHE_HOME the shared one under [CacheDir] that [OfflineEnv]
// gives every real-CLI test. .ci/install-copilot.sh runs the pinned CLI once
// to do it; a CLI named by COPILOT_CLI_PATH, or a cache that was never
// warmed (a fresh HOME), has not: SchemaDir then runs the CLI once itself
// (`--version`, with a private HOME and config, offline) so that the
// schemas exist, and returns that CLI's own version's folder. Without a CLI
// it returns the pinned version's folder, and loading from it fails with an
// error saying how to install one.
func SchemaDir() (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", fmt.Errorf("%w; %s", err, installHint)
	}
	xdg := filepath.Join(cache, "xdg")
	pinned := schemaDirOf(xdg, "linux-x64", Version)
	bin, err := Binary()
	if err != nil {
		return pinned, nil // nothing to unpack with: loading says how to install
	}
	if os.Getenv("COPILOT_CLI_PATH") == "" && hasSchemas(pinned) {
		return pinned, nil // the installed, warmed-up pinned CLI
	}
	return unpackOnce(bin, xdg)
}

func schemaDirOf(xdg, platform, version string) string {
	return filepath.Join(xdg, "copilot", "pkg", platform, version, "schemas")
}

// hasSchemas reports whether both schema files are in dir.
func hasSchemas(dir string) bool {
	for _, name := range []string{"api.schema.json", "session-events.schema.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return false
		}
	}
	return true
}

// unpacks remembers, per CLI binary and cache, the folder its run found:
// a test binary runs each CLI once at most.
var unpacks struct {
	mu   sync.Mutex
	dirs map[[2]string]string
}

func unpackOnce(bin, xdg string) (string, error) {
	unpacks.mu.Lock()
	defer unpacks.mu.Unlock()
	key := [2]string{bin, xdg}
	if dir, ok := unpacks.dirs[key]; ok {
		return dir, nil
	}
	dir, err := unpack(bin, xdg)
	if err != nil {
		return "", err
	}
	if unpacks.dirs == nil {
		unpacks.dirs = map[[2]string]string{}
	}
	unpacks.dirs[key] = dir
	return dir, nil
}

// unpackWait bounds the CLI's first run: its unpack takes 2-3 s on an idle
// machine (about 235 MB).
const unpackWait = 2 * time.Minute

var versionPattern = regexp.MustCompile(`\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)\b`)

// unpack runs bin --version with xdg as its XDG_CACHE_HOME, which unpacks
// its package there if it is not yet, and returns the schemas' folder of
// the version it printed.
func unpack(bin, xdg string) (string, error) {
	home, err := os.MkdirTemp("", "clitest-unpack-")
	if err != nil {
		return "", fmt.Errorf("clitest: unpacking the CLI's schemas: %w", err)
	}
	defer os.RemoveAll(home)
	if err := os.MkdirAll(xdg, 0o755); err != nil {
		return "", fmt.Errorf("clitest: unpacking the CLI's schemas: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), unpackWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CACHE_HOME=" + xdg,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"COPILOT_HOME=" + filepath.Join(home, "copilot"),
		"GH_CONFIG_DIR=" + filepath.Join(home, "gh"),
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("clitest: running %s --version to unpack its schemas: %w (output: %.300s)", bin, err, out)
	}
	m := versionPattern.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("clitest: %s --version printed no version (%.300q); cannot tell where its schemas are", bin, out)
	}
	version := string(m[1])
	found, _ := filepath.Glob(schemaDirOf(xdg, "*", version))
	for _, dir := range found {
		if hasSchemas(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("clitest: %s (version %s) ran but left no schemas under %s; is it the Copilot CLI?", bin, version, filepath.Join(xdg, "copilot", "pkg"))
}
