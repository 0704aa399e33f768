#!/bin/sh
# install-deps.sh - make sure the Debian packages icache-lab needs are here.
#
# Run as root, it installs whatever is missing (apt-get update, then
# apt-get install).  Run as anyone else, it prints the exact apt-get line
# to run and exits 1, so `make demo` stops before a build that would fail.
PKGS="gcc make pkg-config lttng-tools liblttng-ust-dev liblttng-ctl-dev \
babeltrace2 libbabeltrace2-dev libncurses-dev check tmux gnuplot-nox \
valgrind clang liburcu-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "icache-lab needs these Debian packages:$missing" >&2
	echo "install them with:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi

echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || { echo "install-deps: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -q $missing >/dev/null || {
	echo "install-deps: apt-get install$missing failed" >&2
	exit 1
}
