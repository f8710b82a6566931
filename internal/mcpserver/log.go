package mcpserver

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quorum-go/quorum/internal/sanitize"
)

// SafeHandler wraps a log handler so that no message or string attribute
// carries a control sequence to the terminal the log is read on: errors
// can quote what the CLI, a model or the client said.
func SafeHandler(h slog.Handler) slog.Handler { return safeHandler{h} }

type safeHandler struct{ h slog.Handler }

func (s safeHandler) Enabled(ctx context.Context, l slog.Level) bool { return s.h.Enabled(ctx, l) }

func (s safeHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, sanitize.Line(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(safeAttr(a))
		return true
	})
	return s.h.Handle(ctx, out)
}

func (s safeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	safe := make([]slog.Attr, len(as))
	for i, a := range as {
		safe[i] = safeAttr(a)
	}
	return safeHandler{s.h.WithAttrs(safe)}
}

func (s safeHandler) WithGroup(name string) slog.Handler { return safeHandler{s.h.WithGroup(name)} }

func safeAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, sanitize.Text(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, sanitize.Text(err.Error()))
		}
		return slog.String(a.Key, sanitize.Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		safe := make([]any, len(g))
		for i, x := range g {
			safe[i] = safeAttr(x)
		}
		return slog.Group(a.Key, safe...)
	}
	return a
}

// argumentsPrefix starts the SDK's message for arguments that do not fit
// the tool's input schema.
const argumentsPrefix = `validating "arguments": `

// explainArguments adds what to do to the SDK's message for arguments that
// do not fit a tool's input schema: the message names the problem, and
// the schema (tools/list) says what fits.
func explainArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if method != "tools/call" || err != nil || !ok || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		if t, ok := r.Content[0].(*mcp.TextContent); ok && len(t.Text) > len(argumentsPrefix) && t.Text[:len(argumentsPrefix)] == argumentsPrefix {
			name := ""
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				name = p.Name
			}
			t.Text = "the arguments do not fit the " + name + " tool's input schema: " + t.Text[len(argumentsPrefix):] +
				"; call it again with the arguments its schema describes (tools/list shows it)"
		}
		return res, err
	}
}
