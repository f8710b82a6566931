package report

import "github.com/quorum-go/quorum/quorum"

// Round is the report of a chat round's result: its discussion, plan,
// debate, review or agent run; nil for an ask round and for a round that
// could not start, which have none.
func Round(r *quorum.ChatRound) Report {
	switch {
	case r.Discuss != nil:
		return Discuss(r.Discuss)
	case r.Plan != nil:
		return Plan(r.Plan)
	case r.Debate != nil:
		return Debate(r.Debate)
	case r.Review != nil:
		return Review(r.Review)
	case r.Agent != nil:
		return Agent(r.Agent)
	}
	return nil
}
