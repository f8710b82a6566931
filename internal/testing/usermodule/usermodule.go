// Package usermodule builds and tests a module of a user's own, as a new
// user would write it: it imports this repository's public packages
// through a replace directive, and nothing else of it. The tests of
// copilottest and quorumtest use it to prove that what they document can
// be used from outside (an internal package, or a test helper that pulls
// in one, would not compile there).
//
// It builds offline: every module the user's needs is in the module
// cache, and go.sum is this repository's. Run is for one test at a time,
// and safe for concurrent use by different tests.
package usermodule

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Run writes a module of the given path (example.com/weather) in a
// temporary folder, whose go.mod requires this repository (at root, the
// folder of its go.mod) and goleak; copies into it every file of src (a folder of the
// caller's testdata), each less its ".txt" suffix; runs go test -v in it;
// and fails t unless it passes and each of tests passed.
func Run(t *testing.T, root, module, src string, tests ...string) {
	t.Helper()
	dir := t.TempDir()
	gomod := "module " + module + "\n\n" + goDirective(t, filepath.Join(root, "go.mod")) + "\n\n" +
		"require (\n\tgithub.com/quorum-go/quorum v0.0.0\n\tgo.uber.org/goleak v1.3.0\n)\n\n" +
		"replace github.com/quorum-go/quorum => " + root + "\n"
	write(t, filepath.Join(dir, "go.mod"), gomod)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, strings.TrimSuffix(f.Name(), ".txt")), string(text))
	}

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // a hang guard: the first run compiles the packages
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", ".")
	cmd.Dir = dir
	// Offline and self-contained: no proxy or checksum database, no
	// workspace of the caller's; -mod=mod lets go complete go.sum from
	// the cache.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in the user's module: %v\n%s", err, out)
	}
	for _, test := range tests {
		if !strings.Contains(string(out), "--- PASS: "+test+" ") {
			t.Errorf("%s did not pass in the user's module:\n%s", test, out)
		}
	}
}

// Deps returns the import paths of pkg and every package it depends on,
// as go list -deps reports them, run in root.
func Deps(t *testing.T, root, pkg string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // a hang guard only
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// goDirective returns the go line of the go.mod at path.
func goDirective(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "go ") {
			return line
		}
	}
	t.Fatalf("%s has no go directive", path)
	return ""
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
