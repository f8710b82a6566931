package copilot_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/copilottest"
	"github.com/quorum-go/quorum/copilot/protocol"
)

// A permission policy that reads each request by its kind: it lets the
// model use our weather tool for the rest of the session, lets it read
// files under /src, and refuses everything else with a reason the model
// reads. Run against the simulated Copilot server, whose model calls the
// tool.
func ExamplePermissionPolicy() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{ID: "model-a",
		Respond: copilottest.UseTool("weather", map[string]string{"city": "Oslo"}, func(t copilottest.Turn) copilottest.Response {
			return copilottest.Response{Text: "The weather tool said: " + t.ToolResults[0].Text}
		})})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // and its client
	client := srv.Client()

	policy := func(ctx context.Context, req copilot.PermissionRequest) (copilot.PermissionDecision, error) {
		typed, err := req.Decode()
		if err != nil {
			return copilot.Reject("unreadable request"), nil
		}
		switch r := typed.(type) {
		case *protocol.PermissionRequestCustomTool:
			fmt.Printf("asked: %s %s %s\n", req.Kind, r.ToolName, r.Args)
			if r.ToolName == "weather" {
				return copilot.ApproveForSession(req), nil
			}
		case *protocol.PermissionRequestRead:
			if strings.HasPrefix(r.Path, "/src/") {
				return copilot.ApproveOnce(), nil
			}
		case *protocol.PermissionRequestShell:
			return copilot.Reject("no shell commands here; ask the user to run " + r.FullCommandText), nil
		}
		return copilot.Reject("not allowed in this session"), nil
	}

	type place struct {
		City string `json:"city" jsonschema:"description=The city to look up"`
	}
	weather := copilot.DefineTool("weather", "Current weather of a city", func(ctx context.Context, p place) (string, error) {
		return "sunny in " + p.City, nil
	})
	s, err := client.NewSession(ctx, copilot.SessionConfig{
		Model:       "model-a",
		Tools:       []copilot.Tool{weather},
		Permissions: policy,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Delete(ctx)
	answer, err := s.Ask(ctx, "What is the weather in Oslo?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
	// Output:
	// asked: custom-tool weather {"city":"Oslo"}
	// The weather tool said: sunny in Oslo
}
