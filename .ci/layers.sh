#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks a tool's include rule (analyzer/README.md, collector/README.md): every #include "..."
# between the tool's folders points down the order of layers that the README's "Layers:" line
# gives, lowest first (files at the top of the tool's folder, a front end like analyzer/main.c, may
# include every folder), a header of another folder is named by its path ("model/estimate.h",
# "sources/counters.h"), and no module (x.c + x.h) reaches itself through includes (a circle,
# found by tsort).
#   sh .ci/layers.sh [DIR]          check DIR (default analyzer); exit 0 clean, 1 with one line per violation
#   sh .ci/layers.sh --graph [DIR]  print the include graph between folders: "from -> to (n)"
graph=0
[ "$1" = "--graph" ] && { graph=1; shift; }
top=${1:-analyzer}
[ -f "$top/README.md" ] || { echo "layers.sh: error: no '$top/README.md'" >&2; exit 2; }
order=$(sed -n 's/^Layers:[[:space:]]*//p' "$top/README.md" | head -1)
[ -n "$order" ] || { echo "layers.sh: error: no 'Layers:' line in '$top/README.md'" >&2; exit 2; }
rank() { # $1 folder ("." for the front end) -> its rank in $order; 99 for the front end; empty if unlisted
	[ "$1" = "." ] && { echo 99; return; }
	i=0; for l in $order; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done
}
edges=$(mktemp) || exit 2
trap 'rm -f "$edges"' EXIT
bad=0
cd "$top" || exit 2
for f in *.[ch] */*.[ch]; do
	[ -f "$f" ] || continue
	from=$(dirname "$f")
	[ -n "$(rank "$from")" ] || { echo "$top/$f: folder '$from' is not in the README's Layers: line"; bad=1; continue; }
	mod=${f%.[ch]}
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		*/*) to=${inc%%/*}; target=$inc ;;
		*) if [ -f "$from/$inc" ]; then to=$from; target=$from/$inc
		   else
			other=$(ls -- */"$inc" 2>/dev/null | head -1)
			[ -n "$other" ] && { echo "$top/$f: includes \"$inc\" of $(dirname "$other")/ by its bare name: write \"$other\""; bad=1; }
			continue
		   fi ;;
		esac
		[ -f "$target" ] || { echo "$top/$f: includes \"$inc\", which is not in $top/"; bad=1; continue; }
		target=${target#./}
		rf=$(rank "$from"); rt=$(rank "$to")
		if [ "$to" != "$from" ]; then
			echo "$from $to" >>"$edges.dirs"
			if [ -z "$rt" ] || [ "$rt" -ge "$rf" ]; then
				echo "$top/$f: includes \"$inc\": $from/ may not include $to/ (Layers: $order)"; bad=1
			fi
		fi
		[ "${target%.h}" != "${mod#./}" ] && echo "${mod#./} ${target%.h}" >>"$edges"
	done
done
if [ $graph -eq 1 ]; then
	[ -f "$edges.dirs" ] && sort "$edges.dirs" | uniq -c | awk '{ printf "%s -> %s (%d)\n", ($2 == "." ? "main" : $2), $3, $1 }'
	rm -f "$edges.dirs"
	exit $bad
fi
rm -f "$edges.dirs"
if ! loop=$(tsort "$edges" 2>&1 >/dev/null) || [ -n "$loop" ]; then
	echo "modules include each other in a circle: $(echo "$loop" | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | tr '\n' ' ')"
	bad=1
fi
exit $bad
