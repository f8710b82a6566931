package copilot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/quorum-go/quorum/copilot"
	"github.com/quorum-go/quorum/copilot/copilottest"
)

// This is the README's example: it starts the Copilot CLI, runs two
// sessions at once, and gives one of them a tool. (Compiled, not run: it
// needs a logged-in CLI.)
func Example_start() {
	ctx := context.Background()
	client, err := copilot.Start(ctx, copilot.Options{}) // `copilot` from PATH, over stdio
	if err != nil {
		log.Fatal(err) // says how to install the CLI if it is missing
	}
	defer client.Close()

	clock := copilot.Tool{
		Name:           "utc_time",
		Description:    "The current UTC time",
		Parameters:     json.RawMessage(`{"type":"object","properties":{}}`),
		SkipPermission: true, // ours and harmless: no need to ask
		Handler: func(ctx context.Context, call copilot.ToolCall) (string, error) {
			return "12:00", nil
		},
	}
	var g errgroup.Group
	for _, model := range []string{"claude-sonnet-4.5", "gpt-5"} {
		g.Go(func() error {
			s, err := client.NewSession(ctx, copilot.SessionConfig{Model: model, Tools: []copilot.Tool{clock}})
			if err != nil {
				return err
			}
			defer s.Destroy(ctx)
			_, err = s.Stream(ctx, "What time is it in UTC?", copilot.TurnHandlers{
				OnDelta: func(text string) { fmt.Print(text) },
			})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		log.Fatal(err)
	}
}

// The same program against a simulated Copilot CLI (package copilottest),
// which runs in-process and needs no login: its models are scripts.
func Example_simulated() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx,
		copilottest.Model{ID: "model-a", Respond: copilottest.UseTool("utc_time", nil, func(t copilottest.Turn) copilottest.Response {
			return copilottest.Response{Text: "It is " + t.ToolResults[0].Text + " UTC."}
		})},
		copilottest.Model{ID: "model-b", Respond: copilottest.Echo})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // and its client
	client := srv.Client()

	clock := copilot.Tool{
		Name:           "utc_time",
		SkipPermission: true,
		Handler: func(context.Context, copilot.ToolCall) (string, error) {
			return "12:00", nil
		},
	}
	answers := make([]string, 2)
	var g errgroup.Group
	for i, model := range []string{"model-a", "model-b"} {
		g.Go(func() error {
			s, err := client.NewSession(ctx, copilot.SessionConfig{Model: model, Tools: []copilot.Tool{clock}})
			if err != nil {
				return err
			}
			defer s.Destroy(ctx)
			answers[i], err = s.Ask(ctx, "What time is it in UTC?")
			return err
		})
	}
	if err := g.Wait(); err != nil {
		log.Fatal(err)
	}
	sort.Strings(answers)
	for _, a := range answers {
		fmt.Println(a)
	}
	// Output:
	// It is 12:00 UTC.
	// echo: What time is it in UTC?
}
