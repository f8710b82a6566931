package testutil

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// GoBuild builds the Go package pkg (an import path) into the test's
// temporary folder and returns the binary's path, failing the test with
// go build's output if it cannot.
func GoBuild(t testing.TB, pkg string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("building %s needs the go command: %v", pkg, err)
	}
	bin := filepath.Join(t.TempDir(), path.Base(pkg))
	cmd := exec.Command(goBin, "build", "-o", bin, pkg)
	cmd.Env = os.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}
