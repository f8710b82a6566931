#!/usr/bin/env bash
# Installs the GitHub Copilot CLI that the integration tests drive, outside the
# repository, and prints the absolute path of its native binary on the last
# line of stdout.
#
# Why outside the repo: the package is ~129 MB and its first run unpacks
# ~235 MB more; neither belongs in a work tree or a submission.
#
# Environment:
#   QUORUM_CACHE   cache root (default: $HOME/.cache/quorum)
#   COPILOT_DIR    install prefix (default: $QUORUM_CACHE/copilot-1.0.102)
#
# Idempotent: when the binary is already there it only prints its path (the
# warm-up is also skipped once it has succeeded), so CI can call it every run.
set -euo pipefail

VERSION=1.0.102
QUORUM_CACHE="${QUORUM_CACHE:-${HOME:?HOME is not set}/.cache/quorum}"
COPILOT_DIR="${COPILOT_DIR:-$QUORUM_CACHE/copilot-$VERSION}"
BIN="$COPILOT_DIR/node_modules/@github/copilot-linux-x64/copilot"
# Every test points XDG_CACHE_HOME here, so the CLI's first-run unpack happens once.
XDG_SHARED="$QUORUM_CACHE/xdg"
WARM_MARK="$XDG_SHARED/.copilot-$VERSION-warm"

die() { echo "install-copilot: $*" >&2; exit 1; }

case "$(uname -s)-$(uname -m)" in
Linux-x86_64) ;;
*) die "only linux-x64 is supported (this is $(uname -s)-$(uname -m))" ;;
esac

if [ ! -x "$BIN" ]; then
	command -v npm >/dev/null 2>&1 || die "npm not found; install Node.js (>= 20) and npm first"
	mkdir -p "$COPILOT_DIR"
	echo "install-copilot: installing @github/copilot@$VERSION into $COPILOT_DIR (~129 MB)" >&2
	# npm's own output goes to stderr so that stdout stays a clean path for callers.
	if ! npm install --no-audit --no-fund --no-save --prefix "$COPILOT_DIR" "@github/copilot@$VERSION" >&2; then
		die "npm install @github/copilot@$VERSION failed (is the npm registry reachable?)"
	fi
	[ -x "$BIN" ] || die "npm succeeded but $BIN is missing; the package layout may have changed"
fi

if [ ! -e "$WARM_MARK" ]; then
	mkdir -p "$XDG_SHARED"
	# The first run unpacks the CLI into $XDG_CACHE_HOME/copilot/pkg; doing it
	# here keeps that 2-3 s (and its disk churn) out of the first test's timeout.
	# A throwaway HOME keeps the warm-up from writing config into the real one.
	tmp_home="$(mktemp -d)"
	trap 'rm -rf "$tmp_home"' EXIT
	if ! out="$(HOME="$tmp_home" XDG_CACHE_HOME="$XDG_SHARED" XDG_CONFIG_HOME="$tmp_home/config" \
		XDG_STATE_HOME="$tmp_home/state" COPILOT_HOME="$tmp_home/copilot" \
		"$BIN" --version 2>&1)"; then
		die "warm-up run '$BIN --version' failed: $out"
	fi
	echo "install-copilot: $out" >&2
	touch "$WARM_MARK"
fi

echo "$BIN"
