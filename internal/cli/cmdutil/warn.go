package cmdutil

import (
	"fmt"

	"github.com/quorum-go/quorum/internal/sanitize"
)

// WarnFileProblem reports a broken config file, or environment variable,
// as a warning: config and version show what they can, and exit 0, so
// that the problem can be seen and repaired; the commands that run models
// refuse to start until it is.
func (inv *Invocation) WarnFileProblem() error {
	ps := inv.Loaded.Problems
	switch {
	case len(ps) == 1:
		fmt.Fprintf(inv.ErrOut, "quorum: warning: %s\n(the commands that use it will not start until it is fixed)\n", sanitize.Text(ps[0].Error()))
	case len(ps) > 1:
		fmt.Fprintf(inv.ErrOut, "quorum: warning: %d problems in the settings:\n", len(ps))
		for _, p := range ps {
			fmt.Fprintf(inv.ErrOut, "  %s\n", sanitize.Text(p.Error()))
		}
		fmt.Fprintln(inv.ErrOut, "(the commands that use them will not start until they are fixed)")
	}
	return nil
}
