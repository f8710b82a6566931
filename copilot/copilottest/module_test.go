package copilottest_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/testing/usermodule"
)

// TestFromAnotherModule is the proof that a user can test with the
// package: a module of its own, as a user's would be, imports it
// (through a replace directive to this repository) and tests its own
// code with it — seven concurrent sessions, a tool call it scripted, the
// error of a crash. quorumtest's tests do the same for quorum's
// strategies.
func TestFromAnotherModule(t *testing.T) {
	usermodule.Run(t, repoRoot(t), "example.com/weather", filepath.Join("testdata", "usermodule"),
		"TestSevenConcurrentSessions", "TestScriptedToolCall", "TestCrashMidTurn")
}

// A test helper of the copilot layer pulls in nothing of the layers
// above it, as net/http/httptest pulls in no web framework: package
// quorum's simulated models are quorumtest's.
func TestStandsAlone(t *testing.T) {
	for _, dep := range usermodule.Deps(t, repoRoot(t), "github.com/quorum-go/quorum/copilot/copilottest") {
		if strings.HasPrefix(dep, "github.com/quorum-go/quorum/quorum") || strings.HasSuffix(dep, "/simquorum") {
			t.Errorf("copilottest depends on %s", dep)
		}
	}
}

func repoRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}
