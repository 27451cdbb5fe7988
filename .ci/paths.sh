#!/bin/sh
# SPDX-License-Identifier: MIT
# Paths of the project's own files named in its text (docs, READMEs, man pages, source comments):
# each one must exist, so that a file moved or renamed is not left cited at its old place
# (issue 27/32's folders left analyzer/records.c and collector/calibrate.c named in docs/).
# Usage: sh .ci/paths.sh [TOP]  (default: the current directory). Prints "FILE: names PATH, which
# does not exist" per stale path and exits 1 when there is one, 0 otherwise. A path with a
# placeholder (tests/workloads/X.c) is not checked.
top=${1:-.}
cd "$top" || exit 2
found=$(find README.md docs analyzer collector common formats tests/README.md tests/unit tests/cli \
	     tests/bench tests/workloads -type f \( -name '*.md' -o -name '*.[ch]' -o -name '*.sh' -o \
	     -name '*.py' -o -name '*.1' \) 2>/dev/null | sort |
	while read -r f; do
		grep -o '\b\(collector\|analyzer\|common\|formats\|tests\)/[A-Za-z0-9_/.-]*\.\(c\|h\|sh\|md\|py\)\b' "$f" |
			sort -u | while read -r p; do
				case $p in */[A-Z].[ch]) continue ;; esac
				[ -e "$p" ] || echo "$f: names $p, which does not exist"
			done
	done)
[ -z "$found" ] && exit 0
printf '%s\n' "$found"
exit 1
