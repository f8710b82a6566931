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

// A prompt with attachments: a file the CLI reads itself (the path is on
// the CLI's machine) and an image sent inline. Against the real CLI the
// model gets the file as a tagged-files entry and the image as an image;
// the simulator's model here only echoes the text.
func ExampleSession_StreamPrompt() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{ID: "model-a", Respond: copilottest.Echo})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // and its client
	client := srv.Client()
	s, err := client.NewSession(ctx, copilot.SessionConfig{Model: "model-a"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Destroy(ctx)

	png := []byte("\x89PNG…") // the bytes of an image
	reply, err := s.StreamPrompt(ctx, copilot.Prompt{
		Text: "Summarise the notes and describe the chart.",
		Attachments: []protocol.Attachment{
			copilot.FileAttachment("/home/me/notes.md"),
			copilot.BlobAttachment(png, "image/png", "chart.png"),
		},
		RequestHeaders: map[string]string{"X-Request-Source": "example"},
	}, copilot.TurnHandlers{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Text)
	// Output:
	// echo: Summarise the notes and describe the chart.
}

// A hook that rewrites every prompt before the model sees it, or blocks it.
// The CLI (here the simulator, which behaves as the CLI does) asks the
// client through hooks.invoke when a prompt is submitted.
func ExampleHooks() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{ID: "model-a", Respond: copilottest.Echo})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // and its client
	client := srv.Client()

	s, err := client.NewSession(ctx, copilot.SessionConfig{Model: "model-a", Hooks: &copilot.Hooks{
		OnUserPromptSubmitted: func(_ context.Context, in copilot.UserPromptSubmittedInput) (*copilot.UserPromptSubmittedOutput, error) {
			if strings.Contains(in.Prompt, "password") {
				return &copilot.UserPromptSubmittedOutput{Decision: copilot.HookBlock, Reason: "no secrets, please"}, nil
			}
			return &copilot.UserPromptSubmittedOutput{ModifiedPrompt: in.Prompt + " Answer in one sentence."}, nil
		},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Destroy(ctx)

	for _, prompt := range []string{"Why is the sky blue?", "What is my password?"} {
		answer, err := s.Ask(ctx, prompt)
		fmt.Printf("%q %v\n", answer, err)
	}
	// Output:
	// "echo: Why is the sky blue? Answer in one sentence." <nil>
	// "" <nil>
}

// The model may ask the user a question (the CLI's ask_user tool): a
// user-input handler answers it, and the model goes on with the answer.
func ExampleSessionConfig_userInput() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{ID: "model-a", Respond: copilottest.AskUser(
		copilottest.UserQuestion{Question: "Which colour should the button be?", Choices: []string{"red", "blue"}},
		func(t copilottest.Turn) copilottest.Response {
			answer, _ := t.UserAnswer()
			return copilottest.Response{Text: "Making the button " + answer + "."}
		})})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close() // and its client
	client := srv.Client()

	cfg := copilot.SessionConfig{Model: "model-a"}
	cfg.Handlers.UserInputRequest = func(_ context.Context, q *protocol.UserInputRequestParams) (*protocol.UserInputResponse, error) {
		fmt.Printf("asked %q, choosing from %v\n", q.Question, q.Choices)
		return &protocol.UserInputResponse{Answer: q.Choices[len(q.Choices)-1]}, nil
	}
	s, err := client.NewSession(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Destroy(ctx)
	answer, err := s.Ask(ctx, "Style the button.")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(answer)
	// Output:
	// asked "Which colour should the button be?", choosing from [red blue]
	// Making the button blue.
}
