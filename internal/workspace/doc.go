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
//   - Every git command runs no command a configuration names: hooks
//     (core.hooksPath below /dev/null, where no one can plant one), the
//     file-system monitor, filter drivers, credential helpers, ssh,
//     external diffs, automatic gc; no system or global configuration is
//     read after Open (which reads the user's identity once); commit
//     signing is off and no terminal prompt can wait for a passphrase.
//     The worktree's commands pin the git folders NewWorktree made
//     (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE) and commit with plumbing on
//     the branch's tip, so nothing the executor writes in the worktree (its
//     .git file, a .gitattributes) or could write in its git folder
//     (commondir, HEAD) leads quorum's git elsewhere or runs on the host.
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
