package cli

import "github.com/quorum-go/quorum/internal/cli/cmdutil"

// ExitCode maps Run's error to the process exit status (cmdutil's exit
// codes).
func ExitCode(err error) int { return cmdutil.ExitCode(err) }
