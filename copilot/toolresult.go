package copilot

import (
	"context"
	"errors"
	"fmt"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// ToolResult is a tool's whole answer, as the CLI takes it: the text the
// model reads (TextResultForLLM), the outcome (ResultType: ToolSuccess or
// ToolFailure; empty means success, or failure when Error is set), an
// error message, images and other binary data for the model
// (BinaryResultsForLLM, base64), structured content blocks, a log for the
// session's timeline, and telemetry. A handler returns one through
// ResultHandler or DefineTool.
type ToolResult = protocol.ExternalToolTextResultForLLM

// The outcomes a ToolResult reports (ToolResult.ResultType).
const (
	ToolSuccess = "success"
	ToolFailure = "failure"
)

// ResultHandler makes a ToolHandler of a handler that returns a whole
// ToolResult. The tool pipeline's stages see, and may change, the result's
// text as they see a plain handler's (truncation applies to it); the rest
// of the result goes to the CLI as the handler returned it. An error still
// makes the call a plain failed result, whatever the result held: the
// model is told only that the tool failed, unless the error is a
// ToolError (return a ToolResult with ResultType ToolFailure and a nil
// error to tell the model more).
func ResultHandler(h func(ctx context.Context, call ToolCall) (ToolResult, error)) ToolHandler {
	return func(ctx context.Context, call ToolCall) (string, error) {
		res, err := h(ctx, call)
		if slot := richResultOf(ctx); slot != nil {
			slot.result = &res
		}
		return res.TextResultForLLM, err
	}
}

// richResult is where a ResultHandler leaves its result for the answer of
// the call it ran in: the pipeline between them passes only text.
type richResult struct{ result *ToolResult }

type richResultKey struct{}

func withRichResult(ctx context.Context, r *richResult) context.Context {
	return context.WithValue(ctx, richResultKey{}, r)
}

func richResultOf(ctx context.Context) *richResult {
	r, _ := ctx.Value(richResultKey{}).(*richResult)
	return r
}

// ToolError is an error a tool handler returns to tell the model why its
// call failed: the model reads ForModel. Any other error of a handler (or
// a panic) reaches the model only as a generic failure — the CLI tells it
// "Tool execution failed", as with the official SDK — because its text may
// carry paths, hosts or secrets: the details stay with the program, in the
// session's log (warning level) and its ToolTrace. Err, when set, holds
// those details: Error and Unwrap are Err's, so errors.Is sees through a
// ToolError. A ToolResult with ResultType ToolFailure (ResultHandler,
// DefineTool) is the other way to tell the model why.
//
//	return "", &copilot.ToolError{ForModel: "no city named " + a.City, Err: err}
type ToolError struct {
	ForModel string
	Err      error
}

func (e *ToolError) Error() string {
	if e.Err == nil {
		return e.ForModel
	}
	return e.Err.Error()
}

func (e *ToolError) Unwrap() error { return e.Err }

// forModel is an error of this package's own about a call (its arguments
// do not fit, the tool is not in the profile, the limit is reached), whose
// text helps the model and holds nothing of the program's.
func forModel(format string, args ...any) error {
	return &ToolError{ForModel: fmt.Sprintf(format, args...)}
}

// toolFailed is what the model is told of a handler's error that is not a
// ToolError, as the CLI words it when the client sends no details.
const toolFailed = "Tool execution failed"

// toolResultOf is the answer to a call whose pipeline returned out and
// err: a failure when err is set (hidden: the model is told only that it
// failed, unless err is a ToolError); else the rich result the handler
// gave, if any, with the text the pipeline's stages made of it; else plain
// success.
func toolResultOf(out string, err error, rich *ToolResult) (res ToolResult, hidden bool) {
	var te *ToolError
	switch {
	case errors.As(err, &te):
		return ToolResult{TextResultForLLM: te.ForModel, ResultType: ToolFailure, Error: te.ForModel}, false
	case err != nil:
		return ToolResult{TextResultForLLM: toolFailed, ResultType: ToolFailure, Error: toolFailed}, true
	case rich != nil:
		res := *rich
		res.TextResultForLLM = out
		if res.ResultType == "" {
			res.ResultType = ToolSuccess
			if res.Error != "" {
				res.ResultType = ToolFailure
			}
		}
		return res, false
	}
	return ToolResult{TextResultForLLM: out, ResultType: ToolSuccess}, false
}
