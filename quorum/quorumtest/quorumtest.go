package quorumtest

import (
	"context"
	"slices"
	"testing"

	"github.com/quorum-go/quorum/copilot/copilottest"
	"github.com/quorum-go/quorum/internal/simquorum"
	"github.com/quorum-go/quorum/quorum"
)

// Moderator is the id of the simulated moderator, for quorum.Config's
// Moderator.
const Moderator = "sim-moderator"

// Participants returns the ids of the simulated participants, for
// quorum.Config's Models.
func Participants() []string { return slices.Clone(simquorum.Participants) }

// Config returns a quorum.Config whose Models are the Participants and
// whose Moderator is the Moderator; set its other fields as your test
// needs.
func Config() quorum.Config {
	return quorum.Config{Models: Participants(), Moderator: Moderator}
}

// Models returns the simulated participants and moderator, to offer on a
// copilottest server of your own making (each is a copilottest.Option);
// NewServer offers them for you.
func Models() []copilottest.Model {
	var out []copilottest.Model
	for _, m := range simquorum.Models() {
		out = append(out, copilottest.Model{ID: m.ID, Name: m.Name, Respond: m.Respond})
	}
	return out
}

// NewServer is copilottest.NewServer offering the Models, and whatever
// opts add: your own models (with ids of their own: an id offered twice
// fails the test), LoggedOut, ClientOptions. The test's cleanup closes
// the server and its client.
func NewServer(t testing.TB, opts ...copilottest.Option) *copilottest.Server {
	t.Helper()
	return copilottest.NewServer(t, withModels(opts)...)
}

// Start is NewServer for code that has no testing.TB (an Example, a
// TestMain): close the server with its Close. ctx bounds the client's
// handshake.
func Start(ctx context.Context, opts ...copilottest.Option) (*copilottest.Server, error) {
	return copilottest.Start(ctx, withModels(opts)...)
}

// withModels is opts after the Models and their premium-request
// multipliers (the same as --sim's: sim-gamma costs a quarter of a
// request), so that opts may set other multipliers.
func withModels(opts []copilottest.Option) []copilottest.Option {
	all := make([]copilottest.Option, 0, len(opts)+8)
	for _, m := range Models() {
		all = append(all, m)
	}
	for _, m := range simquorum.Models() {
		if m.Multiplier != nil {
			all = append(all, copilottest.PremiumMultiplier(m.ID, *m.Multiplier))
		}
	}
	return append(all, opts...)
}
