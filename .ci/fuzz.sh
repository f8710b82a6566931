#!/usr/bin/env bash
# Runs every fuzz target of the project for a while each, a few at a time.
# Not part of CI (it takes hours); the reliability issue asks for each target
# to run at least ten minutes before a release.
#
#   bash .ci/fuzz.sh [duration per target, default 10m] [targets at once, default 2] [target regexp]
#   bash .ci/fuzz.sh --list [target regexp]   # print the "package target" pairs a run would fuzz
#   bash .ci/fuzz.sh --self-check             # prove the selection: every target by default, none fails
#
# The target regexp is matched against the whole target name (FuzzRouter,
# FuzzScanner, ...); the default, '.*', selects every target. A run whose
# pattern selects no target fails (exit 2) instead of fuzzing nothing.
#
# Each target's log is written to $FUZZ_LOG_DIR (default /tmp/quorum-fuzz) as
# <package>.<target>.log; a summary line per target goes to stdout. A crasher
# is written by go test under the package's testdata/fuzz and makes the
# script exit 1: commit it as a regression seed once fixed.
set -uo pipefail
cd "$(dirname "$0")/.."

# all_targets prints every "package target" pair, found from the source so
# that a new target is not forgotten.
all_targets() {
	grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . |
		sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz.*)#\1 \2#' | sort -u
}

# select_targets prints the pairs whose target name matches all of $1.
select_targets() {
	all_targets | grep -E " ($1)\$"
}

if [ "${1:-}" = "--list" ]; then
	select_targets "${2:-.*}"
	exit $?
fi

if [ "${1:-}" = "--self-check" ]; then
	# The default selection must be every target, and a pattern that
	# selects none must make a run fail before it fuzzes anything.
	total="$(all_targets | wc -l)"
	selected="$(select_targets '.*' | wc -l)"
	if [ "$total" -eq 0 ] || [ "$selected" -ne "$total" ]; then
		echo "fuzz self-check: the default pattern selects $selected of $total targets" >&2
		exit 1
	fi
	if FUZZ_LOG_DIR="$(mktemp -d)" bash "$0" 1s 1 'NoSuchFuzzTarget' >/dev/null 2>&1; then
		echo "fuzz self-check: a run that selects no target exited 0" >&2
		exit 1
	fi
	echo "fuzz self-check: ok (the default selects all $total targets; an empty selection fails)"
	exit 0
fi

duration="${1:-10m}"
lanes="${2:-2}"
only="${3:-.*}"
logs="${FUZZ_LOG_DIR:-/tmp/quorum-fuzz}"
mkdir -p "$logs"

mapfile -t targets < <(select_targets "$only")
if [ "${#targets[@]}" -eq 0 ]; then
	echo "fuzz: the pattern '$only' selects no fuzz target (bash .ci/fuzz.sh --list shows them)" >&2
	exit 2
fi
echo "fuzz: ${#targets[@]} targets, $duration each, $lanes at once; logs in $logs" >&2

run_one() {
	local pkg="$1" target="$2"
	local log="$logs/${pkg//\//_}.$target.log"
	local corpus="$pkg/testdata/fuzz/$target"
	local before
	before="$(ls "$corpus" 2>/dev/null | sort)"
	# -parallel 1: one worker per target, so that $lanes targets share the
	# machine's cores evenly. -timeout 0: the default (10m) would end a
	# ten-minute run.
	if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$duration" -parallel 1 -timeout 0 "./$pkg" >"$log" 2>&1; then
		echo "ok   $pkg $target $(grep -Eo 'execs: [0-9]+' "$log" | tail -n 1)"
	elif [ "$(ls "$corpus" 2>/dev/null | sort)" = "$before" ] && tail -n 5 "$log" | grep -q 'context deadline exceeded'; then
		# Go 1.26's coordinator can report its own -fuzztime deadline as a
		# failure when a worker is mid-call as time runs out
		# (golang/go#75804, fixed in Go 1.27): no input failed, none was
		# written.
		echo "ok   $pkg $target $(grep -Eo 'execs: [0-9]+' "$log" | tail -n 1) (ended by the fuzztime race golang/go#75804; no crasher)"
	else
		echo "FAIL $pkg $target (see $log; a crasher is under $corpus)"
		return 1
	fi
}

status=0
running=0
for entry in "${targets[@]}"; do
	run_one $entry &
	running=$((running + 1))
	if [ "$running" -ge "$lanes" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
done
while [ "$running" -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
exit $status
