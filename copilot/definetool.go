package copilot

import (
	"context"
	"encoding/json"
	"fmt"
)

// DefineTool makes a Tool of a typed Go function: its Parameters are the
// JSON Schema of In (see JSONSchemaFor), and each call's arguments are
// decoded into an In before fn runs. fn returns the text for the model, or
// a whole ToolResult (images, a result type, a log). Arguments that do not
// decode into In give the model a failed result that says why; an error
// from fn gives it a failed result that says only that the tool failed,
// unless it is a ToolError (see ToolHandler). The turn goes on.
//
//	type weatherArgs struct {
//		City string `json:"city" jsonschema:"description=The city to look up"`
//	}
//	weather := copilot.DefineTool("weather", "Current weather of a city",
//		func(ctx context.Context, a weatherArgs) (string, error) { return lookUp(ctx, a.City) })
//
// DefineTool panics, naming the field, when In cannot be described
// (JSONSchemaFor's error): it is a mistake in the program, found the
// first time the tool is defined. Use JSONSchemaFor and a Tool literal to
// get that error instead.
func DefineTool[In any, Out string | ToolResult](name, description string, fn func(ctx context.Context, in In) (Out, error)) Tool {
	params, err := JSONSchemaFor[In]()
	if err != nil {
		panic(fmt.Sprintf("copilot.DefineTool(%q): %v", name, err))
	}
	return Tool{
		Name:        name,
		Description: description,
		Parameters:  params,
		Handler: ResultHandler(func(ctx context.Context, call ToolCall) (ToolResult, error) {
			var in In
			args := call.Arguments
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return ToolResult{}, forModel("the arguments of %s do not fit its parameters' schema: %v", name, err)
			}
			out, err := fn(ctx, in)
			switch v := any(out).(type) {
			case string:
				return ToolResult{TextResultForLLM: v}, err
			case ToolResult:
				return v, err
			}
			panic("unreachable: Out is a string or a ToolResult")
		}),
	}
}
