// Package workspace is where agent mode carries out a change: a git
// worktree of a new branch, outside the user's working tree, and what a
// newcomer would read of the repository before planning it.
//
// The promise it keeps is the one agent mode makes: the user's working
// tree, index and HEAD are never touched, and nothing the agent did is
// lost. It follows from three rules, each kept in one place:
//
//   - Nothing here writes in the user's working tree. Open only reads;
//     NewWorktree runs `git worktree add -b BRANCH DIR HEAD`, which writes
//     the new branch's ref and the worktree's bookkeeping under the
//     repository's git directory and checks out into DIR, a folder outside
//     the working tree (Options.Root). Context is read from HEAD's tree
//     (git show), never from the working tree, so the plan is made from the
//     files the executor will find.
//   - Every git command runs with the user's hooks switched off
//     (core.hooksPath pointing at an empty folder), commit signing off and
//     no terminal prompt, so no hook of the user's runs on the agent's
//     behalf and no command can wait for a passphrase.
//   - Work is committed on the branch (Worktree.Commit), and the worktree
//     is never removed here: on success, failure or interrupt the branch
//     and the folder stay for the user to look at, merge or drop.
//
// DiffRange, git diff of a range, is the one piece of the git side that
// quorum review and quorum mcp's review tool share with agent mode: it
// only reads (git diff runs no hook; the file-system monitor, which could
// run a configured command, is turned off).
//
// Every function that runs git takes a context and kills git when it ends.
// The types are not safe for concurrent use: agent mode calls them from one
// goroutine.
package workspace
