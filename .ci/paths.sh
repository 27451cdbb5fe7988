#!/bin/sh
# SPDX-License-Identifier: MIT
# Paths of the project's own files named in its text (docs, READMEs, man pages, source comments):
# each one must exist, so that a file moved or renamed is not left cited at its old place
# (a move into a folder once left analyzer/records.c and collector/calibrate.c named in docs/).
# Checked: paths under collector/, analyzer/, common/, formats/ and tests/ (.c .h .sh .md .py),
# and under docs/ (.md .1 .5) where docs/ starts the path (a path that only ends in docs/x.md, as
# $TOP/docs/x.md or another project's x/docs/y.md, is not checked). A man page's
# escaped hyphen (\-) is read as '-'.
# Usage: sh .ci/paths.sh [TOP]  (default: the current directory). Prints "FILE: names PATH, which
# does not exist" per stale path and exits 1 when there is one, 0 otherwise. A path with a
# placeholder (tests/workloads/X.c) is not checked.
top=${1:-.}
cd "$top" || exit 2
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
found=$(find README.md docs analyzer collector common formats tests/README.md tests/unit tests/cli \
	     tests/bench tests/workloads -type f \( -name '*.md' -o -name '*.[ch]' -o -name '*.sh' -o \
	     -name '*.py' -o -name '*.[15]' \) 2>/dev/null | sort |
	while read -r f; do
		sed 's/\\-/-/g' "$f" >"$tmp"
		{ grep -o '\b\(collector\|analyzer\|common\|formats\|tests\)/[A-Za-z0-9_/.-]*\.\(c\|h\|sh\|md\|py\)\b' "$tmp"
		  grep -o '\(^\|[^/A-Za-z0-9_.-]\)docs/[A-Za-z0-9_/.-]*\.\(md\|1\|5\)\b' "$tmp" | sed 's#^[^d]##'
		} | sort -u | while read -r p; do
				case $p in */[A-Z].[ch] | */TOOL.[15]) continue ;; esac
				[ -e "$p" ] || echo "$f: names $p, which does not exist"
			done
	done)
[ -z "$found" ] && exit 0
printf '%s\n' "$found"
exit 1
