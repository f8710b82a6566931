package clitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// WithoutSandboxTools returns env with a PATH that holds only git and a
// shell: what a run needs besides the CLI, and none of the sandbox's
// prerequisites (bwrap, slirp4netns, iptables), so that the CLI reports a
// host that cannot sandbox.
func WithoutSandboxTools(t testing.TB, env []string) []string {
	t.Helper()
	bare := t.TempDir()
	for _, tool := range []string{"git", "sh", "bash"} {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(bare, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PATH=") {
			out = append(out, kv)
		}
	}
	return append(out, "PATH="+bare)
}
