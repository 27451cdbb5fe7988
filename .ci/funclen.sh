#!/bin/sh
# SPDX-License-Identifier: MIT
# Lengths of the C functions under the given folders (default analyzer/), longest first:
# "lines file:line name". A function runs from its signature's first line (a line at column 0
# with a '(') to the '}' at column 0 that closes it (the house style: braces of a function body at
# column 0). `sh .ci/funclen.sh analyzer | head -5` gives the five longest; t0910 fails on one over 150 and lists those over 100.
[ $# -eq 0 ] && set -- analyzer
find "$@" -name '*.c' | sort | while read -r f; do
	awk -v f="$f" '
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { sig = FNR; name = $0; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name) }
	/^\{/ && sig { start = sig; inbody = 1 }
	/^\}/ && inbody { printf "%d %s:%d %s\n", FNR - start + 1, f, start, name; inbody = 0; sig = 0 }
	' "$f"
done | sort -rn
