// Package simquorum makes simulated Copilot models (internal/sim) behave as
// quorum participants; it ships in the quorum binary for the --sim demo and
// serves tests, examples, benchmarks and the `quorum
// --sim` demo. Each model recognises quorum's prompts by the marker line
// that starts them (quorum.PromptMarker) and answers in the shape quorum
// asks for: a short answer, a JSON review verdict, a Markdown synthesis, a
// JSON plan, a JSON vote; a debater's argument, objections, answers and
// rulings, and a moderator's verdict (debate.go); findings on a change
// (review.go). Debaters, moderators and reviewers each write in one of
// three styles (the JSON asked for, loose JSON in a fence with other
// scales' words, or Markdown with now and then an unreadable item), so
// that runs exercise quorum's parsers and their fallbacks. The demo's own
// models never write Markdown, which the report would list as a parse
// problem; a model whose id ends in MarkdownSuffix always does.
//
// Replies are deterministic (seeded by a hash of the model and the
// prompt), vary with the words of the question or task, read like a few
// plausible sentences, stream in several chunks, and always start with
// "[simulated <model>]" so nobody mistakes them for a real model's. They
// carry no delays; pace them for a demo with sim.Paced.
//
// Simulated reviewers, voters, debaters and code reviewers read the quoted
// texts the way a careful model would: only between quorum's delimiter
// lines, and they treat a quoted text that tries to give them
// instructions as poor (scored 1, a blocking objection or finding).
//
// Everything here is safe for concurrent use: the responders keep no
// state.
package simquorum
