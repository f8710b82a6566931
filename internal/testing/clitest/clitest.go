package clitest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Version is the CLI version the tests are written against.
const Version = "1.0.102"

// installHint is what to do when the CLI is missing. It names both the
// project's script (which installs into the cache Binary looks in) and a
// global npm install (whose binary must then be named explicitly).
const installHint = "run .ci/install-copilot.sh, or `npm install -g @github/copilot@" + Version +
	"` and set COPILOT_CLI_PATH=$(command -v copilot)"

// CacheDir is where .ci/install-copilot.sh puts the CLI and the shared
// XDG_CACHE_HOME: $QUORUM_CACHE, else $HOME/.cache/quorum.
func CacheDir() (string, error) {
	if d := os.Getenv("QUORUM_CACHE"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("clitest: no QUORUM_CACHE and no home directory: %w", err)
	}
	return filepath.Join(home, ".cache", "quorum"), nil
}

// Binary returns the CLI to run: $COPILOT_CLI_PATH when set, else the
// native binary that .ci/install-copilot.sh installs under [CacheDir]. The
// error explains how to install it.
func Binary() (string, error) {
	if p := os.Getenv("COPILOT_CLI_PATH"); p != "" {
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("clitest: COPILOT_CLI_PATH=%s: %w; unset it to use the cached install, or %s", p, err, installHint)
		}
		return p, nil
	}
	cache, err := CacheDir()
	if err != nil {
		return "", fmt.Errorf("%w; %s", err, installHint)
	}
	p := filepath.Join(cache, "copilot-"+Version, "node_modules", "@github", "copilot-linux-x64", "copilot")
	if err := checkExecutable(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("clitest: Copilot CLI %s not found at %s: %s", Version, p, installHint)
		}
		return "", fmt.Errorf("clitest: %s: %w; %s", p, err, installHint)
	}
	return p, nil
}

func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("not an executable file")
	}
	return nil
}

// ServerArgs are the flags that start the CLI as a headless JSON-RPC server
// on stdio, authenticated by the token in COPILOT_SDK_AUTH_TOKEN (which
// [OfflineEnv] sets) and never trying to update or log in. Extra flags are
// appended; for TCP mode use [TCPServerArgs].
func ServerArgs(extra ...string) []string {
	return append([]string{"--headless", "--no-auto-update", "--stdio",
		"--auth-token-env", "COPILOT_SDK_AUTH_TOKEN", "--no-auto-login"}, extra...)
}

// TCPServerArgs are [ServerArgs] with "--port 0" instead of "--stdio": the
// CLI then prints "CLI server listening on port N" on stdout.
func TCPServerArgs(extra ...string) []string {
	return append([]string{"--headless", "--no-auto-update", "--port", "0",
		"--auth-token-env", "COPILOT_SDK_AUTH_TOKEN", "--no-auto-login"}, extra...)
}

// AuthToken is the token OfflineEnv gives the CLI. The local model API
// accepts any token; a recognisable one makes it easy to spot in logs.
const AuthToken = "quorum-offline-test-token"

// OfflineEnv is a complete environment for the CLI child: fresh temporary
// HOME, COPILOT_HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, GH_CONFIG_DIR and
// XDG_CACHE_HOME (so no test sees another's sessions, config, logins or
// cached account, nor the developer's), every API URL and proxy pointed at
// apiURL, NO_PROXY for loopback, the token, and PATH. Nothing else from the
// test's environment is passed on.
//
// Only the CLI's unpacked package is shared: the test's
// XDG_CACHE_HOME/copilot/pkg links to the one under [CacheDir], so the CLI's
// 235 MB first-run unpack happens once. The rest of the CLI's cache must not
// be: it keeps the account the model API described
// (copilot-user-cache.json) and reuses it instead of asking again, so a test
// whose account allows MCP servers got, on a loaded machine, the account of
// an earlier test that does not, and the CLI filtered its server out.
func OfflineEnv(t testing.TB, apiURL string) []string {
	t.Helper()
	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dirs := map[string]string{
		"HOME":            "home",
		"COPILOT_HOME":    "copilot",
		"XDG_CONFIG_HOME": "config",
		"XDG_STATE_HOME":  "state",
		"GH_CONFIG_DIR":   "gh",
	}
	xdgCache := filepath.Join(root, "cache")
	if err := linkPackage(filepath.Join(cache, "xdg"), xdgCache); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"XDG_CACHE_HOME=" + xdgCache,
		"COPILOT_API_URL=" + apiURL,
		// Without it the CLI calls the public GitHub API for the user.
		"COPILOT_DEBUG_GITHUB_API_URL=" + apiURL,
		"COPILOT_SDK_AUTH_TOKEN=" + AuthToken,
		"HTTP_PROXY=" + apiURL, "HTTPS_PROXY=" + apiURL,
		"http_proxy=" + apiURL, "https_proxy=" + apiURL,
		"NO_PROXY=127.0.0.1,localhost,::1", "no_proxy=127.0.0.1,localhost,::1",
	}
	for _, name := range []string{"HOME", "COPILOT_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "GH_CONFIG_DIR"} {
		d := filepath.Join(root, dirs[name])
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		env = append(env, name+"="+d)
	}
	return env
}

// linkPackage makes xdgCache a cache folder of the CLI whose copilot/pkg (the
// unpacked package) is shared's: a link to shared/copilot/pkg, made first if
// no CLI has unpacked into it yet.
func linkPackage(shared, xdgCache string) error {
	pkg := filepath.Join(shared, "copilot", "pkg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return fmt.Errorf("clitest: the shared cache of the CLI's package: %w", err)
	}
	own := filepath.Join(xdgCache, "copilot")
	if err := os.MkdirAll(own, 0o700); err != nil {
		return fmt.Errorf("clitest: the test's cache folder: %w", err)
	}
	if err := os.Symlink(pkg, filepath.Join(own, "pkg")); err != nil {
		return fmt.Errorf("clitest: linking the CLI's package into the test's cache: %w", err)
	}
	return nil
}
