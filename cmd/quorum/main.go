// Command quorum runs several Copilot models on one question at once: a
// quorum discussion, ensemble planning, or a single question. Run
// `quorum help` for usage, or add --sim to try it without a Copilot login.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/quorum-go/quorum/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C cancels the run, which then aborts its turns and
	// stops the CLI; restoring the default handling right away lets a
	// second Ctrl-C end the process at once if that clean-up hangs.
	go func() {
		<-ctx.Done()
		stop()
	}()
	err := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(cli.ExitCode(err))
}
