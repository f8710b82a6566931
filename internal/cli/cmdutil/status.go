package cmdutil

// Statuses of a result in the JSON envelope.
const (
	StatusOK          = "ok"
	StatusDegraded    = "degraded"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	// An agent that stopped at its gate: it planned (no consent was
	// given: off a terminal without --yes), or the user rejected the plan.
	StatusPlanned  = "planned"
	StatusRejected = "rejected"
)
