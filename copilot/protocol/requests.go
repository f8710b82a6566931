package protocol

import (
	"context"
	"encoding/json"
)

// Handlers answers every request the CLI may send its client: the schema's
// (ClientHandlers, embedded, so its fields are set directly on Handlers)
// and the older ones it still sends when a session asks for them
// (requestUserInput, requestExitPlanMode, …). A nil handler leaves its
// method unhandled; see Handle.
type Handlers struct {
	ClientHandlers

	// UserInputRequest answers userInput.request: the agent asks the user a
	// question. Setting it makes package copilot create the session with
	// requestUserInput, so the agent may ask.
	UserInputRequest func(ctx context.Context, params *UserInputRequestParams) (*UserInputResponse, error)
	// ExitPlanModeRequest answers exitPlanMode.request: the agent asks to
	// leave plan mode and act. Setting it makes package copilot create the
	// session with requestExitPlanMode.
	ExitPlanModeRequest func(ctx context.Context, params *ExitPlanModeRequestParams) (*ExitPlanModeResponse, error)
	// AutoModeSwitchRequest answers autoModeSwitch.request: after a rate
	// limit, whether to switch to the auto model. Setting it makes package
	// copilot create the session with requestAutoModeSwitch.
	AutoModeSwitchRequest func(ctx context.Context, params *AutoModeSwitchRequestParams) (*AutoModeSwitchRequestResponse, error)
	// SystemMessageTransform answers systemMessage.transform: the sections
	// of the CLI's system prompt, offered for rewriting.
	SystemMessageTransform func(ctx context.Context, params *SystemMessageTransformParams) (*SystemMessageTransformResult, error)
}

// Handle decodes params and calls the handler for method, as
// ClientHandlers.Handle does, the older requests included.
func (h *Handlers) Handle(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case MethodUserInputRequest:
		return handleWith(ctx, method, params, h.UserInputRequest)
	case MethodExitPlanModeRequest:
		return handleWith(ctx, method, params, h.ExitPlanModeRequest)
	case MethodAutoModeSwitchRequest:
		return handleWith(ctx, method, params, h.AutoModeSwitchRequest)
	case MethodSystemMessageTransform:
		return handleWith(ctx, method, params, h.SystemMessageTransform)
	}
	return h.ClientHandlers.Handle(ctx, method, params)
}

// handleWith decodes params into P and calls fn, or says there is no fn.
func handleWith[P, R any](ctx context.Context, method string, params json.RawMessage, fn func(context.Context, *P) (*R, error)) (any, error) {
	if fn == nil {
		return nil, ErrNoHandler
	}
	var p P
	if err := decodeParams(method, params, &p); err != nil {
		return nil, err
	}
	return fn(ctx, &p)
}
