package copilot

import (
	"context"

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
// makes the call a plain failed result, whatever the result held.
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

// toolResultOf is the answer to a call whose pipeline returned out and
// err: a failure when err is set; else the rich result the handler gave,
// if any, with the text the pipeline's stages made of it; else plain
// success.
func toolResultOf(out string, err error, rich *ToolResult) ToolResult {
	switch {
	case err != nil:
		return ToolResult{TextResultForLLM: "Error: " + err.Error(), ResultType: ToolFailure, Error: err.Error()}
	case rich != nil:
		res := *rich
		res.TextResultForLLM = out
		if res.ResultType == "" {
			res.ResultType = ToolSuccess
			if res.Error != "" {
				res.ResultType = ToolFailure
			}
		}
		return res
	}
	return ToolResult{TextResultForLLM: out, ResultType: ToolSuccess}
}
