// Package chat is `quorum chat`'s terminal UI, in production: a
// conversation with a quorum (quorum.Chat) on bubbletea, with one live pane
// per model while a round runs, the rendered report of each round, a
// status line, an input with history and slash commands, a list to pick
// the models from (/models, picker.go), the gate of an /agent round
// (gate.go: the plan to approve, edit or reject, shell commands to allow);
// and the same conversation line by line (RunPlain) where a full-screen UI
// does not fit.
// It only renders: rounds, their saving and resuming are quorum.Chat's.
//
// Concurrency contract: the bubbletea model (Model) is touched only by
// bubbletea's goroutine, in Update and View; everything that happens
// elsewhere arrives as a message: a round's events come through a Feed
// (quorum's Config.Progress, one goroutine at a time, pushed to a channel
// that a command reads one event at a time), and a round's end is the
// message its command returns. An /agent round's questions come through
// the same Feed (possibly ahead of events emitted before them): the
// asker's goroutine waits for the answer or for its context to end; the
// model shows one question at a time and queues the others, takes keys
// for it only once it has been shown a moment (keys typed before go to
// the input), answers on a channel that holds the one answer, so
// answering never blocks, and withdraws a question whose asker stopped
// waiting. A round runs on bubbletea's
// command goroutine with a context the model cancels (Esc, Ctrl-C); the
// model never waits for a round. Model text is cleaned (package sanitize) before it
// reaches a pane or a line, in both modes.
package chat
