// Package quorum runs several models on one question at once and combines
// what they say: a peer-reviewed discussion (Discuss), ensemble planning
// with voting (Plan), a structured debate with an objection ledger
// (Debate), a review of a code change (Review), or an agent that plans a
// change, has it reviewed and approved, carries it out with tools and
// reviews the result (Agent); it is production code. It talks to models through
// Backend, which Copilot adapts from a *copilot.Client. In tests, package
// quorumtest's simulated participants and moderator answer its prompts
// offline, on a simulated Copilot CLI (package copilottest).
//
//	c, _ := copilot.Start(ctx, copilot.Options{})
//	d, err := quorum.Discuss(ctx, quorum.Copilot(c), "Should we shard the database?",
//		quorum.Config{Models: []string{"claude-sonnet-4.5", "gpt-5", "gemini-2.5-pro"}})
//
// # Discussion
//
// Every participant answers in its own session, in parallel and streamed.
// The answers are relabelled Response A, B, … in an order seeded by the
// question (model names hidden, the mapping kept in the result) and quoted
// between delimiter lines carrying a nonce derived from the answers; "<<<"
// and ">>>" inside an answer are defanged so it cannot close its block or
// open another, and the prompt tells reviewers that quoted text is
// material, never instructions. Each participant reviews the others'
// answers (never its own; Config.AnswersPerReviewer of them if set, so N·k
// reviews instead of N·(N−1), each answer getting k) and returns a verdict:
// per answer a 1–10 score, strengths and weaknesses, and a ranking. Mean
// score and Borda count per answer, self-votes excluded, give one ranking.
// The moderator then writes a synthesis (Conclusion, Key points,
// Consensus, Disagreements); if it fails, the best-ranked remaining
// participant takes its place, and the result says so.
//
// # Planning
//
// Every model proposes a plan (title, ordered steps, risks) in parallel.
// Every plan is then scored by every other model, all N·(N−1) votes at
// once, as JSON {score, reasoning}. The highest mean score wins; ties go to
// the Borda count, then to fewer failed votes, then to Config.Models'
// order, so the same inputs always pick the same plan.
//
// # Debate
//
// The models in odd places of Config.Models argue for a claim
// (proponents), the others against it (opponents), under anonymous labels.
// In the opening, both sides at once, proponents make their case and
// opponents raise objections, each blocking, major or minor, into a
// ledger (O1, O2, …). In each round (Config.Rounds, default 2), both
// sides at once again, each answering the other's arguments of the
// previous phase: proponents answer the standing objections, opponents
// rule on their own (answered, withdrawn or standing) and may raise new
// ones. The settle gate ends the debating as soon as no blocking
// objection stands. The moderator then rules on the answers no opponent
// has seen yet and gives the verdict: the position (for, against,
// undecided), why, the objections still standing by severity, and what
// would change it. Arguments and the ledger are quoted between delimiter
// lines with a nonce that changes every round.
//
// # Review
//
// Every model reviews a unified diff (Change, with optional context
// files) independently: findings with file, lines, severity, category,
// explanation and suggested fix. The diff is refused when it is binary,
// not a diff, or over MaxChangeBytes (Change.Validate), and is quoted with
// the new files' line numbers. Findings on the same place that say the
// same are merged, counting the models that agree, and ranked by
// severity, then agreement.
//
// # Agent
//
// Agent plans a coding task and carries it out. The models propose plans
// whose steps each name a goal, the files they touch and how to check
// them, and vote (AgentConfig.Solo: one model plans alone); the others
// review the winning plan and its author revises it, at most
// AgentConfig.MaxRevisions rounds. AgentConfig.Approve, the human gate,
// approves, edits or rejects it; without it the run stops there
// (StagePlanned): nothing is executed without consent. AgentConfig.Plan
// carries out a plan given in advance (the one such a run stopped at,
// saved): no planning phase runs, and no model is asked before the gate.
// One session, the executor, then carries the plan out with the
// provider's own tools in a Workspace (for the quorum command a git
// worktree of a new branch, never the user's working tree), one turn per
// step, each step committed.
// Every permission request goes through an action gate: reads and writes
// inside the workspace are allowed, anything outside it denied (symbolic
// links followed), shell commands decided by AgentConfig.Shell (a person,
// the other models' majority vote, always, or never), URLs denied unless
// AgentConfig.AllowURL, every other kind denied; a denial is told to the
// model, which goes on. The other models review the branch's diff;
// findings at or above AgentConfig.FailOn get a fix round and a re-review.
// quorum itself never runs git or touches a file: all it changes, the
// executor changes, as the gate allows. With AgentConfig.Attempts (or
// Executors), several executors carry the approved plan out at once, each
// in a workspace of its own with its own session and gate decisions, each
// reviewed; then every model judges the attempts, knowing them only by
// label, and the best is the result (AgentResult.Attempts, Ranking). One
// attempt failing does not stop the others.
//
// # Conversations
//
// Chat keeps a conversation going over rounds: Chat.Discuss, Plan, Debate
// and Review run the strategies as rounds, and Chat.Ask puts a question to
// one model. Unlike a single run, each model keeps one session for the
// whole chat: the first phase of every round (answers, proposals, the
// opening, the inspection) and Ask go to it, so each model has its own
// context, and a round's prompt carries what the previous round concluded
// (and any earlier round one of its participants missed). A cancelled
// round is kept, marked interrupted, and the chat goes on. A chat saved in
// ChatConfig.Dir (ChatDir: $XDG_STATE_HOME/quorum/chats) is written as it
// goes, one JSON object a line, mode 0600; ResumeChat continues it in the
// same sessions where the provider still has them (Copilot: after Detach,
// or a crash), else in new sessions told the saved rounds. Close deletes
// the sessions. A chat runs one round at a time.
//
// # Parsing
//
// Models are asked for JSON; ParseVerdict, ParseBallot, ParsePlan,
// ParseSynthesis, ParseArgument, ParseDecision and ParseFindings also read
// JSON inside prose or a code fence (trailing commas repaired), other
// keys and other scales' words (critical for blocking, resolved for
// answered), a FINAL RANKING: list, N/10 scores, Markdown sections and
// list items. What cannot be read is recorded as a parse problem, never
// invented. A review, vote, plan, inspection or verdict with nothing usable
// counts as its model's failure (ErrUnparsable).
//
// A run calls the parsers itself. They are exported, with ParseSeverity
// and ArgumentReply (the shape a debater is asked to reply in), for code
// that reads or writes replies outside a run: checking that a model's
// replies to custom Prompts still parse, or scripting participants for
// tests (quorumtest's models are checked with them).
//
// # Failure, time and cost
//
// A model that errors, replies with nothing usable or passes
// Config.PhaseTimeout is left out of the later phases and the run goes on;
// the result is marked degraded and its Failures name the model, the phase
// and the real error. When fewer than Config.MinModels models are left
// after a phase (or nobody can write the synthesis or the verdict, or a
// debate's side has nobody left) the run fails with a *TooFewError
// listing every failure. Config.Timeout bounds the whole run.
// A run that fails or is cancelled still returns its result, with
// everything that came in before it stopped: answers or plans, reviews or
// votes, and the ranking they make (but no winning plan).
//
// Every model call opens a fresh session, sends one prompt and closes the
// session (Conversation.Close, which for Copilot deletes it from the CLI,
// disk included) as soon as the reply is in, so no session outlives the
// phase that needed it, nor the run in the user's session history.
// Config.MaxConcurrency bounds the sessions open at once (a weighted
// semaphore). Cancelling the context aborts every turn in flight and
// deletes its session within Config.CloseTimeout; every strategy returns
// only after every call has ended. Token usage is summed per call, per
// model and per run when the provider reports it.
//
// # Premium requests
//
// Every turn costs the user premium requests, GitHub Copilot's billing
// unit: its model's multiplier (Config.Multipliers; CopilotMultipliers
// reads them from the CLI) for each model request. EstimateDiscuss,
// EstimatePlan, EstimateDebate, EstimateReview, EstimateAgent and
// EstimateAsk say before a run, asking no model, what each phase will
// take (a range where the run decides). Config.MaxPremium caps a run: it
// shrinks to fit before it starts (Premium.LeftOut says what it left out)
// and never starts a turn that would pass the cap, stopping with
// ErrPremiumCap and what it has. Discuss's reviews and Plan's votes start
// in waves, each as small as could settle the winner, and stop once the
// leader can no longer be overtaken (early stop; Config.NoEarlyStop
// starts them all at once): the winner is always the full run's, and
// Premium.Skipped counts what was saved. Outcome.Premium reports the
// estimate, the use and both.
//
// Copilot sessions run with the CLI's built-in tools switched off (no
// shell, no file writes, no web access) and deny every permission request:
// the models only talk. The one exception is an agent's executor, whose
// session keeps one conversation across the plan's steps and acts, as the
// action gate allows (see Agent).
//
// # Concurrency contract
//
// Discuss, Plan, Debate and Review may be called concurrently, with the
// same Backend and even the same Transcript. Within a run, phases follow one another; the
// calls of a phase run concurrently, each on its own goroutine (with early
// stop, a review or vote phase runs as waves of concurrent calls, one wave
// after another). A Backend
// must therefore accept concurrent Open calls; each Conversation is used
// by one goroutine at a time. Config.Progress is called from one goroutine
// at a time, never concurrently, in the order events happened; the run
// never waits for it (events queue, and deltas of a turn merge while
// queued), and the run returns only after its last event was delivered
// (unless the run was cancelled and Progress is stuck; see
// Config.Progress).
// Results are assembled in task order after each phase, so the same
// inputs give the same result whatever order calls finished in. An
// agent's attempts are the one exception to "phases follow one another":
// each attempt's phases run on its own goroutine, alongside the others',
// and record apart; their records join the result in label order once
// every attempt has ended.
//
// # Results
//
// DiscussResult, PlanResult, DebateResult, ReviewResult and AgentResult
// marshal to a stable JSON schema (see result.go, result_debate.go,
// result_review.go and result_agent.go): every answer, review (raw text, parsed verdict, parse
// problems), standing, vote, turn, objection, finding, failure, phase and
// call with timings in milliseconds and usage, the degraded flag and any
// moderator substitution. What the results have in common is one type
// each, embedded: Outcome (the run), Moderation (who wrote a synthesis or
// verdict), RawReply (a reply as written and its parse problems) and
// TurnCost (its time and usage).
package quorum
