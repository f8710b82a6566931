package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/quorum-go/quorum/internal/testing/modelapi"
)

// The real CLI's measurement (BenchmarkRealCLI) needs a model API for the
// CLI to stream from, and its client's CPU must not include the API's. The
// benchmark makes the listener inside its sandbox and hands it to a child
// process (file descriptor 3) that serves the API until its stdin closes.

// RoleModelAPI serves a model API on the listener passed as descriptor 3.
const RoleModelAPI = "modelapi"

// RealModel is the model the real CLI's sessions use: every answer streams
// Chunks pieces of 20 characters.
const RealModel = "stream"

// serveModelAPI is the child's side of RoleModelAPI.
func serveModelAPI(_ context.Context, job Job) (Result, error) {
	ln, err := net.FileListener(os.NewFile(3, "listener"))
	if err != nil {
		return Result{}, fmt.Errorf("bench: the model API's listener: %w", err)
	}
	text := strings.Repeat("twenty characters.. ", job.Chunks)
	api, err := modelapi.Start(modelapi.Config{Listener: ln, Models: map[string]modelapi.Responder{
		RealModel: modelapi.Fixed(modelapi.Text(text).WithChunks(job.Chunks)),
	}})
	if err != nil {
		return Result{}, err
	}
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
	return Result{}, api.Close()
}
