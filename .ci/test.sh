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

status=0
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"
if [ -n "$unformatted" ]; then
	echo "test: gofmt would change:" >&2
	echo "$unformatted" >&2
	status=1
fi
go vet ./... || status=1
# -p 2: two packages at a time on a two-core machine.
go test -race -count=1 -p 2 -timeout 15m ./... || status=1
exit $status
