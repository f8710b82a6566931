// Package quorumtest runs package quorum's strategies in your tests with no
// model behind them: it adds to a copilottest server the simulated
// participants and moderator that answer quorum's prompts, so that
// quorum.Discuss, Plan, Debate, Review and Agent run to a result offline —
// no CLI, no login, no network.
//
//	func TestDecision(t *testing.T) {
//		srv := quorumtest.NewServer(t)
//		d, err := quorum.Discuss(t.Context(), quorum.Copilot(srv.Client()), "Monolith or microservices?", quorumtest.Config())
//		// d.Standings ranks quorumtest.Participants(); d.Synthesis is quorumtest.Moderator's.
//	}
//
// The models (Models) are the quorum command's --sim ones. Each recognises
// quorum's prompts by the marker line that starts them and answers in the
// shape quorum asks for — a short answer, a JSON review verdict, a
// synthesis, a JSON plan or vote, a debater's argument, a moderator's
// verdict, findings on a change, an agent's steps through the CLI's
// built-in tools — in one of a few styles, so that quorum's parsers and
// their fallbacks are exercised. Responses are deterministic (seeded by the
// model and the prompt), start with "[simulated <id>]", and answer a plain
// prompt with a few plausible sentences.
//
// Everything else — your own scripted models beside these, faults, the
// records of what the client sent — is package copilottest's: NewServer
// takes its options and returns its Server.
//
// # Concurrency
//
// The models keep no state: each call is answered from the turn alone, so
// any number of sessions may use them at once. The Server's contract is
// copilottest's.
//
// # Compatibility
//
// New in this release: these models were copilottest.QuorumModels,
// QuorumParticipants and QuorumModerator. The words of their responses
// follow quorum's prompts and may change with them; test what your code
// does with a result, not the models' exact text.
package quorumtest
