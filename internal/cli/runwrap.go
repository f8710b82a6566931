package cli

import (
	"github.com/quorum-go/quorum/internal/cli/cmdutil"
	"github.com/quorum-go/quorum/quorum"
)

// modelRun is the code of a command that runs models (discuss, plan,
// debate, review, agent, ask) on a prepared invocation. observe,
// when not nil, sees every quorum event after the progress view, and
// ask's streamed text as Delta events; the command itself passes nil.
type modelRun func(inv *cmdutil.Invocation, observe func(quorum.Progress)) error

// runWrapper runs a command's code, run, on a prepared invocation in its
// place, as cli/cli's tests inject a command's run function: a test's
// wrapper passes run an observer, to watch the run and stop it at a
// chosen point (see env.run). Nothing in the command sets one.
type runWrapper func(inv *cmdutil.Invocation, run modelRun) error

// wrapped is the run function of a command in a package of its own that
// runs models, when w is set: w stands around the package's run, which
// takes the observer w gives it. Without w the command runs its own code.
func wrapped[O any](w runWrapper, inv func(*O) *cmdutil.Invocation, run func(*O, func(quorum.Progress)) error) func(*O) error {
	if w == nil {
		return nil
	}
	return func(o *O) error {
		return w(inv(o), func(_ *cmdutil.Invocation, observe func(quorum.Progress)) error { return run(o, observe) })
	}
}
