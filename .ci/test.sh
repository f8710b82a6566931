#!/usr/bin/env bash
# Runs every test of the project, the conformance tests against the real
# Copilot CLI included. This is the README's test command and what CI runs.
#
# The pinned CLI is installed outside the repository (see install-copilot.sh)
# unless COPILOT_CLI_PATH already names a binary. If it cannot be installed,
# the tests still run and the real-CLI ones fail with a message saying why.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ -z "${COPILOT_CLI_PATH:-}" ]; then
	if path="$(bash .ci/install-copilot.sh | tail -n 1)" && [ -x "$path" ]; then
		export COPILOT_CLI_PATH="$path"
	else
		echo "test: could not install the Copilot CLI; the real-CLI tests will fail" >&2
	fi
fi
echo "test: Copilot CLI: ${COPILOT_CLI_PATH:-none}" >&2
# The agent's executor runs inside the CLI's sandbox, which needs
# bubblewrap, slirp4netns and iptables (the sandbox tests fail without them).
bash .ci/install-sandbox.sh || echo "test: could not install the sandbox's prerequisites; the sandbox tests will fail" >&2

status=0
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"
if [ -n "$unformatted" ]; then
	echo "test: gofmt would change:" >&2
	echo "$unformatted" >&2
	status=1
fi
go vet ./... || status=1
# staticcheck beside go vet, pinned so that a new release cannot fail a
# build that passed (bump it on purpose). go run fetches it through the Go
# module proxy and adds nothing to go.mod.
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./... || status=1
# The protocol package is generated from the pinned CLI's schemas (unpacked
# by install-copilot.sh): regenerating must change nothing.
if go generate ./copilot/protocol; then
	stale="$(git status --porcelain -- copilot/protocol 2>/dev/null)"
	if [ -n "$stale" ]; then
		echo "test: go generate ./copilot/protocol changed the committed code (regenerate and commit it):" >&2
		echo "$stale" >&2
		status=1
	fi
else
	echo "test: go generate ./copilot/protocol failed" >&2
	status=1
fi
# The fuzz script is run by hand before a release (it takes hours); its
# selection is checked here so that a run of it cannot fuzz nothing.
bash .ci/fuzz.sh --self-check || status=1
# -p 2: two packages at a time on a two-core machine.
go test -race -count=1 -p 2 -timeout 15m ./... || status=1
# The benchmark suite in its short form (BENCHMARKS.md), so that it cannot
# rot: every measurement runs once, small, and nothing asserts a time (the
# machine is shared). The command prints its table; the go test form runs
# the same measurements and the real CLI's.
go run ./internal/cmd/bench -short || status=1
go test -short -count=1 -run '^$' -bench . -benchtime 1x -timeout 5m ./internal/bench || status=1
exit $status
