package copilottest_test

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

// TestFromAnotherModule is the proof: a module of its own, as a
// user's would be, imports the package (through a replace directive to
// this repository) and tests its own code with it — seven concurrent
// sessions, quorum's Discuss, Plan, Debate and Review to a result (and
// Agent, in a workspace of its own), a tool call it scripted, the error of
// a crash. It builds offline: every module
// it needs is in the module cache, and go.sum is this repository's.
func TestFromAnotherModule(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	goLine := goDirective(t, filepath.Join(root, "go.mod"))
	dir := t.TempDir()
	gomod := "module example.com/weather\n\n" + goLine + "\n\n" +
		"require (\n\tgithub.com/quorum-go/quorum v0.0.0\n\tgo.uber.org/goleak v1.3.0\n)\n\n" +
		"replace github.com/quorum-go/quorum => " + root + "\n"
	write(t, filepath.Join(dir, "go.mod"), gomod)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
	for _, f := range []string{"weather.go", "weather_test.go"} {
		src, err := os.ReadFile(filepath.Join("testdata", "usermodule", f+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, f), string(src))
	}

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // a hang guard: the first run compiles quorum
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
	for _, test := range []string{"TestSevenConcurrentSessions", "TestQuorumStrategies", "TestScriptedToolCall", "TestCrashMidTurn", "TestQuorumAgent"} {
		if !strings.Contains(string(out), "--- PASS: "+test+" ") {
			t.Errorf("%s did not pass in the user's module:\n%s", test, out)
		}
	}
}

// goDirective returns the go line of the go.mod at path.
func goDirective(t *testing.T, path string) string {
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
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
