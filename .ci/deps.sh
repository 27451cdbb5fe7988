#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages the build and the tests need: with apt-get when root, otherwise
# prints the exact apt-get line and fails. Called by `make deps` (and so by `make demo`/`make check`);
# extra packages as arguments (`make bench` adds linux-perf for its perf comparison).
set -eu
pkgs="build-essential pkg-config libzstd-dev zstd libcjson-dev libpapi-dev papi-tools libhwloc-dev hwloc
libnuma-dev libtracefs-dev libtraceevent-dev zlib1g-dev libcmocka-dev clang libomp-dev libgsl-dev libxgboost-dev libdw-dev libcairo2-dev libfontconfig-dev
xz-utils pigz stress-ng graphicsmagick procps python3 file util-linux openmpi-bin libopenmpi-dev groff-base $*"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "pmtools: missing Debian packages; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
echo "pmtools: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
