// Package input is what a command that asks models reads of its
// question: the one argument or stdin (Topic), and the context given with
// it (--context files and folders, or text piped on stdin: WithContext),
// each bounded in size and refused whole rather than cut. Its functions
// read the invocation's stdin and files; one command calls them, once.
package input

import (
	"fmt"
	"io"
	"strings"

	"github.com/quorum-go/quorum/internal/cli/cmdutil"
)

// MaxTopic is the largest topic, task or question quorum takes, read from
// stdin or given as an argument: 1 MiB, far above what fits in a model's
// context, so that a wrong file piped in by mistake is refused rather
// than sent to every model.
const MaxTopic = 1 << 20

// Topic returns the one positional argument, reading stdin for "-". A
// text over MaxTopic is refused, never cut.
func Topic(inv *cmdutil.Invocation, what string) (string, error) {
	t := inv.Args[0]
	from := "the " + what
	if t == "-" {
		b, err := io.ReadAll(io.LimitReader(inv.In, MaxTopic+1))
		if err != nil {
			return "", fmt.Errorf("reading the %s from stdin: %w", what, err)
		}
		if len(b) > MaxTopic {
			return "", cmdutil.Usagef("the %s on stdin is longer than %d bytes (1 MiB), the most quorum takes; shorten it, or send a summary", what, MaxTopic)
		}
		t, from = string(b), "the "+what+" on stdin"
	}
	if len(t) > MaxTopic {
		return "", cmdutil.Usagef("the %s is longer than %d bytes (1 MiB), the most quorum takes; shorten it", what, MaxTopic)
	}
	if t = strings.TrimSpace(t); t == "" {
		return "", cmdutil.Usagef("%s is empty", from)
	}
	return t, nil
}
