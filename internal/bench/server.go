package bench

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/quorum-go/quorum/internal/sim"
)

// BenchModel is the simulated model the suite's sessions use: asked
// "stream N", it streams N pieces of 20 characters, with no delay.
const BenchModel = "bench"

// Prompt asks BenchModel for a turn of chunks pieces.
func Prompt(chunks int) string { return fmt.Sprintf("stream %d", chunks) }

// EventsPerTurn is how many session events a streaming turn of chunks
// pieces makes on the simulator: user.message, assistant.turn_start, a
// message_delta and a streaming_delta per piece, assistant.message,
// assistant.usage, assistant.turn_end, assistant.idle, session.idle.
func EventsPerTurn(chunks int) int { return 2*chunks + 7 }

// ChunksFor returns the pieces per turn that make about events events in
// all over sessions sessions, one turn each.
func ChunksFor(events, sessions int) int {
	return max(1, (events/sessions-7)/2)
}

func benchReply(t sim.Turn) sim.Response {
	var n int
	if _, err := fmt.Sscanf(t.Prompt, "stream %d", &n); err != nil || n < 1 {
		n = 1
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "piece %06d of text.", i%1_000_000) // 20 characters
	}
	return sim.Response{Text: b.String(), Chunks: n}
}

// Server is the simulated Copilot CLI on loopback TCP that the suite's
// clients, ours and the official SDK's, stream from.
type Server struct {
	srv  *sim.Server
	ln   net.Listener
	done sync.WaitGroup
}

// StartServer starts a simulator serving BenchModel on 127.0.0.1.
func StartServer() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		srv: sim.NewServer(sim.Options{Models: []sim.Model{{ID: BenchModel, Respond: benchReply}}}),
		ln:  ln,
	}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		_ = s.srv.Serve(context.Background(), ln)
	}()
	return s, nil
}

// Addr is where the server listens.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server and waits for it.
func (s *Server) Close() {
	s.srv.Close()
	s.done.Wait()
}
