// Package clitest is test support, not on the production path: it runs the real GitHub Copilot CLI in tests, offline, against
// a local model API ([github.com/quorum-go/quorum/internal/testing/modelapi]).
//
// It finds the CLI ([Binary]), builds an environment that points every
// endpoint the CLI knows at the local server and keeps its state in fresh
// temporary directories ([OfflineEnv]), and starts it inside a [Sandbox].
//
// # Network isolation, and why it is done this way
//
// The tests must never talk to anything but 127.0.0.1. Two mechanisms exist:
//
//  1. The environment. COPILOT_API_URL and COPILOT_DEBUG_GITHUB_API_URL point
//     the CLI's model and GitHub API calls at the local server, and the
//     server's /copilot_internal/user answer points the telemetry endpoint
//     there too. HTTP_PROXY/HTTPS_PROXY name the local server with
//     NO_PROXY=127.0.0.1,localhost,::1, so any other request the CLI makes
//     through a proxy-aware client goes to a server that answers 404 instead
//     of to the internet. This is a safety net, not a guarantee: it only
//     covers code that honours the proxy variables.
//
//  2. A private network namespace holding only a loopback interface. That is
//     a guarantee (there is no route anywhere else), but the obvious form,
//     `unshare -n sh -c 'ip link set lo up && exec "$@"'` around the CLI,
//     does not work with a model API started by the test: the child's
//     127.0.0.1 is its own new loopback, on which nothing listens, so every
//     call to the model API is refused and every turn fails.
//     Starting the model API inside the namespace instead would mean a
//     separate server process that the test could not script.
//
// What works is to make the namespace first and put the test's listener in
// it: a socket stays in the network namespace it was created in, whichever
// thread later accepts on it. [NewSandbox] creates the namespace on a
// locked OS thread (unshare(CLONE_NEWNET), then brings lo up),
// [Sandbox.Listen] creates a listener on 127.0.0.1 inside it for the
// in-process model API, and [Sandbox.Command] starts the CLI inside the same
// namespace with nsenter. The test process itself keeps its own network; its
// pipes to the child are unaffected; a TCP-mode CLI is reached with
// [Sandbox.Dial]. Threads that entered the namespace are never unlocked, so
// the Go runtime destroys them rather than run other goroutines there.
//
// This needs root (CAP_SYS_ADMIN) and nsenter. Without them, or with
// QUORUM_NETNS=off in the environment, the sandbox is a pass-through: plain
// net.Listen and exec, and only the environment keeps traffic local; the test
// log says so once per sandbox. Both paths run the same tests.
package clitest
