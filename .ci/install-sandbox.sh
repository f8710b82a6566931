#!/usr/bin/env bash
# Installs what the Copilot CLI's sandbox needs on Linux (the agent's
# executor runs its commands inside it): bubblewrap, slirp4netns,
# iptables and util-linux (unshare, nsenter), from Debian's packages.
# Idempotent: with all of them on PATH it installs nothing. Needs root, or
# sudo without a password. /dev/net/tun cannot be installed: its absence
# is reported.
set -euo pipefail

missing=()
for pair in bwrap:bubblewrap slirp4netns:slirp4netns iptables:iptables unshare:util-linux nsenter:util-linux; do
	command -v "${pair%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${pair%%:*}" ] || missing+=("${pair#*:}")
done
[ -e /dev/net/tun ] || echo "install-sandbox: /dev/net/tun is missing: the sandbox's network (slirp4netns) needs it; in a container, pass --device /dev/net/tun" >&2
[ ${#missing[@]} -eq 0 ] && exit 0
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

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
