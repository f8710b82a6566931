package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

func invocation(stdin string, args []string, context ...string) *cmdutil.Invocation {
	return &cmdutil.Invocation{Factory: &cmdutil.Factory{In: strings.NewReader(stdin)}, Args: args, Opts: &cmdutil.Options{Context: context}}
}

// "-" reads the topic from stdin; one byte over MaxTopic is a usage
// error, not a cut.
func TestTopicFromStdin(t *testing.T) {
	got, err := Topic(invocation("the question", []string{"-"}), "question")
	if err != nil || got != "the question" {
		t.Errorf("Topic = %q, %v", got, err)
	}
	_, err = Topic(invocation(strings.Repeat("x", MaxTopic+1), []string{"-"}), "task")
	if ue := (*cmdutil.UsageError)(nil); !errors.As(err, &ue) || !strings.Contains(err.Error(), "the task on stdin is longer than") {
		t.Errorf("too long: %v", err)
	}
}

// A --context file goes after the question, between delimiters, and the
// report's lines name it.
func TestWithContextFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("the notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := WithContext(invocation("", []string{"why?"}, path), "why?", "question")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.Text, "why?") || !strings.Contains(g.Text, "the notes") || g.Question != "why?" ||
		len(g.Lines) != 1 || !strings.Contains(g.Lines[0], path) {
		t.Errorf("given %+v", g)
	}
}
