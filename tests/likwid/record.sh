#!/bin/sh
# SPDX-License-Identifier: MIT
# record.sh: records likwid-pin's expansion of every CPU expression in tests/likwid/exprs.txt on
# hwloc's Linux test topologies, into tests/fixtures/likwid/likwid-pin.tsv, and each topology as
# hwloc XML (tests/fixtures/likwid/<topology>.xml) for pmtools to evaluate the same expressions on
# (tests/unit/test_likwid_compat.c). Run by hand when LIKWID or the expression list changes:
#   sh tests/likwid/record.sh HWLOC_SOURCE_DIR
# HWLOC_SOURCE_DIR is an unpacked hwloc source tarball (its tests/hwloc/linux/*.tar.bz2; the
# Debian archive has it as pool/main/h/hwloc/hwloc_<version>.orig.tar.bz2).
# How likwid-pin is shown a machine it is not running on: each tarball is an HWLOC_FSROOT tree;
# hwloc's x86 backend is off (HWLOC_COMPONENTS=-x86: with it on, hwloc adds the host's own caches
# to the fake machine), and tests/likwid/fakesys.c, preloaded, sends liblikwid's own reads of
# /sys/devices/system and /proc/cpuinfo to the tree and reports the tree's CPUs as allowed
# (without it likwid-pin keeps only the host's online CPUs).
set -eu
src=${1:?usage: record.sh HWLOC_SOURCE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../fixtures/likwid
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -o "$tmp/fakesys.so" "$here/fakesys.c" -ldl
mkdir -p "$out"
tsv=$out/likwid-pin.tsv
{
	echo "# likwid-pin -p -c EXPR on hwloc's Linux test topologies; $(likwid-pin -v 2>&1 | grep -m1 -o 'likwid-pin.*' || echo likwid-pin)"
	echo "# made by tests/likwid/record.sh; columns: topology, expression, CPUs in order or '!' (refused)"
} >"$tsv"
while read -r topo; do
	case $topo in '#'* | '') continue ;; esac
	tar -C "$tmp" -xjf "$src/tests/hwloc/linux/$topo.tar.bz2"
	root=$tmp/$topo
	HWLOC_FSROOT=$root HWLOC_COMPONENTS=-x86 lstopo-no-graphics --no-io --of xml -f "$out/$topo.xml"
	while read -r expr; do
		case $expr in '#'* | '') continue ;; esac
		got=$(LD_PRELOAD=$tmp/fakesys.so HWLOC_FSROOT=$root HWLOC_COMPONENTS=-x86 \
			likwid-pin -p -c "$expr" 2>/dev/null | head -n 1) || got='!'
		case $got in *[!0-9,]* | '') got='!' ;; esac
		printf '%s\t%s\t%s\n' "$topo" "$expr" "$got" >>"$tsv"
	done <"$here/exprs.txt"
	rm -rf "$root"
done <"$here/topologies.txt"
