// Command quorum runs several Copilot models on one question at once: a
// quorum discussion, ensemble planning, or a single question. Run
// `quorum help` for usage, or add --sim to try it without a Copilot login.
package main

import (
	"context"
	"os"

	"github.com/quorum-go/quorum/internal/cli"
)

func main() {
	ctx, stop := cli.WithSignals(context.Background(), os.Stderr)
	err := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(cli.ExitCode(err))
}
