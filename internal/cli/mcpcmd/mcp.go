// Package mcpcmd is quorum mcp: the quorum as an MCP server (package
// mcpserver), wired to the command's settings, connection and streams.
// The command is built once per run; the server it starts serves its
// calls concurrently, as mcpserver says.
package mcpcmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/internal/cli/connect"
	"github.com/quorum-go/quorum/internal/mcpserver"
	"github.com/spf13/cobra"
)

// MCPOptions are what quorum mcp runs with: its invocation (the tools'
// default settings, --sim, the connection), where it serves and the
// version it tells its clients.
type MCPOptions struct {
	*cmdutil.Invocation
	// HTTPAddr is --http's address; "" serves stdio. AllowRemote lets it
	// be an address other machines reach.
	HTTPAddr    string
	AllowRemote bool
	// Version is quorum's version, the server's in the MCP handshake.
	Version string
}

// NewCmdMCP is quorum mcp; runF, when not nil, runs in place of the
// command's own code with the options parsed (a test's).
func NewCmdMCP(f *cmdutil.Factory, version string, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{Version: version}
	c := cmdutil.NewCommand(f, &cobra.Command{
		Use:   "mcp",
		Short: "Serve the quorum to other agents over the Model Context Protocol",
		Long: `Serve the quorum as a Model Context Protocol (MCP) server, so that other
agents (the Copilot CLI, VS Code, Claude Code, Cursor) can consult it. Its
tools are discuss, plan, debate, review (a diff given as text, or base
and head of the git repository the server runs in), ask (one model) and
models. Each result carries the same JSON as quorum … -o json's result as
structured content, with its output schema, and the Markdown report.

The server speaks over stdio (the default: the client starts quorum mcp)
or, with --http ADDR, over Streamable HTTP on a loopback address (another
address is refused unless --allow-remote; requests from web pages of other
hosts are refused). It starts one Copilot CLI on the first call and runs
every call's sessions over it; at most -j calls run at once. A CLI that
dies is started again on the next call. Settings (quorum config) give the
tools' defaults: models, moderator, review, reviewers, rounds,
phase-timeout, timeout. Logs go to stderr; stdout carries only the
protocol. With --sim it serves the simulated models: no CLI or login.

It exits 0 when the client closes its stdin (stdio); Ctrl-C or SIGTERM
cancels the calls running, stops the CLI and exits 130 or 143.`,
		Example: `  $ quorum mcp --sim                        # try it: a client starts this over stdio
  $ quorum mcp -m gpt-5,claude-sonnet-4.5     # the default participants of every tool
  $ quorum mcp --http 127.0.0.1:8765          # Streamable HTTP at http://127.0.0.1:8765/
  $ claude mcp add quorum -- quorum mcp`,
		Args: cmdutil.NoArgs,
	}, cmdutil.Spec{Flags: func(b cmdutil.FlagBuilder) {
		b.Connects()
	}}, func(inv *cmdutil.Invocation) error {
		opts.Invocation = inv
		if runF != nil {
			return runF(opts)
		}
		return mcpRun(opts)
	})
	fs := c.Flags()
	fs.StringSliceP("model", "m", nil, "a default participant `model` of every tool; repeat, or separate with commas (default: the first three the CLI offers)")
	cmdutil.Annotate(fs.Lookup("model"), cmdutil.AnnSetting, "models")
	cmdutil.Group(fs.Lookup("model"), cmdutil.GroupParticipants)
	b := cmdutil.FlagBuilder{FS: fs}
	b.Setting("moderator", "moderator", "", "the default `model` that writes a synthesis or gives a verdict (default: the first participant)", cmdutil.GroupParticipants)
	b.Setting("phase-timeout", "phase-timeout", "", "the default time limit of each phase (a tool call's phaseTimeoutSeconds)", cmdutil.GroupRun)
	b.Setting("timeout", "timeout", "", "the default time limit of a tool call (its timeoutSeconds); a call past it returns what was collected", cmdutil.GroupRun)
	b.Setting("concurrency", "concurrency", "j", "at most `N` tool calls run models at once; the others wait their turn", cmdutil.GroupRun)
	fs.StringVar(&opts.HTTPAddr, "http", "", "serve Streamable HTTP on `addr` (host:port on a loopback address) instead of stdio")
	cmdutil.Group(fs.Lookup("http"), cmdutil.GroupRun)
	fs.BoolVar(&opts.AllowRemote, "allow-remote", false, "let --http listen on an address other machines can reach (no authentication: only on a network you trust)")
	cmdutil.Group(fs.Lookup("allow-remote"), cmdutil.GroupRun)
	return c
}

func mcpRun(o *MCPOptions) error {
	inv, httpAddr, allowRemote := o.Invocation, o.HTTPAddr, o.AllowRemote
	ctx := inv.Cmd.Context()
	var addr string
	if httpAddr != "" {
		var err error
		if addr, err = mcpserver.ListenAddr(httpAddr, allowRemote); err != nil {
			return cmdutil.Usagef("%s", err)
		}
	}
	if !inv.Opts.Sim {
		// The CLI starts on the first call; a missing one is told now, to
		// the person setting the server up.
		if _, err := connect.FindCLI(inv); err != nil {
			return err
		}
	}
	level := slog.LevelWarn
	if inv.Opts.Verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(mcpserver.SafeHandler(slog.NewTextHandler(inv.ErrOut, &slog.HandlerOptions{Level: level})))
	opts := mcpserver.Options{
		Connect: func(ctx context.Context) (*copilot.Client, func(), error) {
			return connect.Connect(ctx, inv)
		},
		Settings:  inv.Settings,
		Simulated: inv.Opts.Sim,
		Dir:       inv.Dir,
		MaxCalls:  inv.Settings.Concurrency,
		Logger:    logger,
		Version:   o.Version,
	}
	if inv.Opts.Sim {
		opts.SimDefaults = connect.SimDefaults
	}
	srv, err := mcpserver.New(opts)
	if err != nil {
		return err
	}
	if addr == "" {
		err = srv.ServeStdio(ctx, &mcp.IOTransport{Reader: io.NopCloser(inv.In), Writer: nopWriteCloser{inv.Out}})
	} else {
		ln, lerr := net.Listen("tcp", addr)
		if lerr != nil {
			srv.Close()
			return fmt.Errorf("--http %s: %w; pick another port", httpAddr, lerr)
		}
		fmt.Fprintf(inv.ErrOut, "quorum mcp: serving MCP over Streamable HTTP at http://%s/\n", ln.Addr())
		err = srv.ServeHTTP(ctx, ln)
	}
	if err == nil && ctx.Err() != nil {
		// Stopped by a signal, after a clean shutdown: the exit status
		// says which, as every quorum command's does.
		return cmdutil.InterruptedBy(ctx)
	}
	return err
}

// nopWriteCloser is stdout for the MCP transport: closing the connection
// must not close the process's stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
