#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks, before the first compile, that the compiler and every library a build needs are there
# (arguments: the compiler, then pkg-config-name:debian-package pairs). When something is missing
# it names the Debian packages and `make deps` and fails, instead of a compiler error about a
# missing header deep in the build. Called by the Makefile (target pkgcheck).
set -u
cc=$1; shift
missing=""; names=""
command -v "$cc" >/dev/null 2>&1 || { missing="$missing build-essential"; names="$names $cc"; }
if ! command -v pkg-config >/dev/null 2>&1; then
	missing="$missing pkg-config"; names="$names pkg-config"
	for pair in "$@"; do missing="$missing ${pair#*:}"; done
else
	for pair in "$@"; do
		pkg-config --exists "${pair%%:*}" 2>/dev/null && continue
		missing="$missing ${pair#*:}"; names="$names ${pair%%:*}"
	done
fi
[ -z "$missing" ] && exit 0
echo "pmtools: cannot build: missing$names (Debian packages:$missing)" >&2
echo "pmtools: run 'make deps' as root to install every package the build and tests need, or:" >&2
echo "  apt-get install -y$missing" >&2
exit 1
