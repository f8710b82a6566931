package cli

import (
	"github.com/quorum-go/quorum/internal/cli/runquorum"
)

// The strategies' kinds, each carried by its command.
var (
	agentKind = runquorum.Kind{Noun: "agent run", Verb: "planning", Input: agentInput}
)
