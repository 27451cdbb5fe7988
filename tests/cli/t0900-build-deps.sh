#!/bin/sh
# SPDX-License-Identifier: MIT
# The build's package check (.ci/pkgcheck.sh, the Makefile's pkgcheck target; issue 12): on a
# machine without a library's -dev package, plain `make` stops before the first compile with the
# Debian package names and `make deps`, never with a compiler error about a missing header. The
# machine without the packages is simulated by an empty pkg-config search path.
. "$PMT_TOP/tests/cli/lib.sh"

nopc() { env PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$T/no-pc" PKG_CONFIG_SYSROOT_DIR= "$@"; }
mkdir -p "$T/no-pc"

run_capture sh "$PMT_TOP/.ci/pkgcheck.sh" cc libcjson:libcjson-dev zlib:zlib1g-dev
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ]; then ok "every package present: exit 0, silent"
else not_ok "every package present: exit 0, silent" "exit $rc" "$(head -c 300 "$T/err")"; fi

run_capture nopc sh "$PMT_TOP/.ci/pkgcheck.sh" cc libcjson:libcjson-dev zlib:zlib1g-dev
if [ "$rc" -eq 1 ] && grep -q "missing libcjson zlib (Debian packages: libcjson-dev zlib1g-dev)" "$T/err" &&
   grep -q "make deps" "$T/err" && grep -q "^  apt-get install -y libcjson-dev zlib1g-dev$" "$T/err"; then
	ok "missing packages: exit 1, named with their Debian packages, make deps and the apt-get line"
else not_ok "missing packages: named" "exit $rc" "$(head -c 400 "$T/err")"; fi

run_capture sh "$PMT_TOP/.ci/pkgcheck.sh" no-such-cc-xyz zlib:zlib1g-dev
if [ "$rc" -eq 1 ] && grep -q "build-essential" "$T/err"; then ok "missing compiler: names build-essential"
else not_ok "missing compiler: names build-essential" "exit $rc" "$(head -c 300 "$T/err")"; fi

# plain `make` in a copy of the tree (no build products), pkg-config finding nothing: the
# pkgcheck target stops it before any compile
mkdir -p "$T/tree"
(cd "$PMT_TOP" && git ls-files -z 2>/dev/null | xargs -0 cp --parents -t "$T/tree" 2>/dev/null)
if [ ! -f "$T/tree/Makefile" ]; then
	skip "plain make without the -dev packages" "not a git checkout: cannot copy the tree"
else
	run_capture nopc make -C "$T/tree" CI= B=build
	all="$T/out $T/err"
	if [ "$rc" -ne 0 ] && grep -q "pmtools: cannot build: missing" $all && grep -q "apt-get install -y" $all &&
	   ! grep -Eq "fatal error|No such file or directory" $all && [ ! -d "$T/tree/build" ]; then
		ok "plain make without the -dev packages: stops with the install line, no compile"
	else not_ok "plain make without the -dev packages: stops with the install line, no compile" "exit $rc" \
		"$(cat $all | head -c 600)"; fi
fi
done_testing
