#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's example command lines for programs that take their own thread option (xz, pigz)
# run as printed, with the README's input replaced by a small file: each runs twice (as
# --calibrate and --repeat run a command again) and leaves its input in place. An example that
# compresses its input in place would remove it, and its second run would fail.
. "$PMT_TOP/tests/cli/lib.sh"

# the example lines: `pmcollect ... -- PROGRAM ... big.tar ...` inside backquotes
grep -o '`pmcollect [^`]*big\.tar[^`]*`' "$PMT_TOP/README.md" | tr -d '`' >"$T/examples"
check "README.md has the xz and pigz examples" sh -c 'grep -q " -- xz " "$1" && grep -q " -- pigz " "$1"' sh "$T/examples"
i=0
while IFS= read -r line; do
	i=$((i + 1))
	prog=$(printf '%s\n' "$line" | sed 's/.* -- \([^ ]*\).*/\1/')
	if ! command -v "$prog" >/dev/null 2>&1; then
		skip "README example $i ($prog) runs twice and keeps its input" "$prog is not installed"
		continue
	fi
	mkdir -p "$T/ex$i"
	head -c 200000 /dev/urandom | od -An -tx1 >"$T/ex$i/big.tar"
	cmd=$(printf '%s\n' "$line" | sed "s|^pmcollect|\"\$PMCOLLECT\" -q -f -o \"\$T/ex$i/t.zst\"|")
	good=1
	for run in 1 2; do
		(cd "$T/ex$i" && eval "$cmd") >"$T/ex$i/out" 2>"$T/ex$i/err" || good=0
		[ -s "$T/ex$i/big.tar" ] || good=0
	done
	if [ "$good" -eq 1 ]; then ok "README example $i runs twice and keeps its input: $line"
	else not_ok "README example $i runs twice and keeps its input: $line" "$(ls "$T/ex$i")" "$(head -c 400 "$T/ex$i/err")"; fi
done <"$T/examples"
done_testing
