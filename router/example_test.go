package router_test

import (
	"context"
	"fmt"
	"log"

	"github.com/quorum-go/quorum/copilot/copilottest"
	"github.com/quorum-go/quorum/router"
	"github.com/quorum-go/quorum/session"
)

// One connection, one session, one streamed turn: the router's own API,
// beneath package copilot. A simulated Copilot CLI (package copilottest)
// stands in for the real one; Dial opens a connection of the router's own.
func Example() {
	ctx := context.Background()
	srv, err := copilottest.Start(ctx, copilottest.Model{ID: "demo", Respond: copilottest.Echo})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	r, err := router.New(srv.Dial(), router.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()

	// The route exists before session.create is sent, so session.start
	// cannot be lost whichever side of the response it arrives on.
	id := "3f1c8e2a-0000-4000-8000-000000000001"
	ch, err := r.Create(ctx, id, map[string]any{"sessionId": id, "model": "demo", "streaming": true}, nil)
	if err != nil {
		log.Fatal(err)
	}
	// Closing the channel deregisters it; ending the session on the server
	// is a call of its own (package copilot's Session.Destroy makes both).
	defer r.Call(ctx, "session.destroy", map[string]string{"sessionId": id}, nil)
	defer ch.Close(ctx)

	if err := r.Call(ctx, "session.send", map[string]string{"sessionId": id, "prompt": "hello"}, nil); err != nil {
		log.Fatal(err)
	}
	text, err := ch.ReadTurn(ctx, &session.TurnHandlers{OnDelta: func(d string) { /* draw it */ }})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(text)
	fmt.Println("routed:", r.Stats().Routed > 0, "dropped:", r.Stats().DroppedUnknown)
	// Output:
	// echo: hello
	// routed: true dropped: 0
}
