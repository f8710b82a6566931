#!/usr/bin/env bash
# Installs what the Copilot CLI's sandbox needs on Linux (the agent's
# executor runs its commands inside it): bubblewrap, slirp4netns and
# iptables, from Debian's packages. Idempotent: with all three on PATH it
# installs nothing. Needs root, or sudo without a password.
set -euo pipefail

missing=()
for pair in bwrap:bubblewrap slirp4netns:slirp4netns iptables:iptables; do
	command -v "${pair%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${pair%%:*}" ] || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || { echo "install-sandbox: not root and no sudo: install ${missing[*]} (apt-get install ${missing[*]})" >&2; exit 1; }
	sudo="sudo -n"
fi
echo "install-sandbox: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q "${missing[@]}" >&2; then
	$sudo apt-get update -q >&2
	$sudo apt-get install -y -q "${missing[@]}" >&2
fi
