#!/bin/sh
# SPDX-License-Identifier: MIT
# docs/pmtrace.5 keeps in step with formats/FORMAT.md: every record type (name and code), every
# top-level META key and every version of the change log that FORMAT.md names appears in the man
# page (tests/format-keys.py lists them); FORMAT.md's WARNING codes are those pmcollect writes
# (collector/sources/warnings.def), each in the man page too; and the page renders without warnings.
. "$PMT_TOP/tests/cli/lib.sh"

man5="$PMT_TOP/docs/pmtrace.5"
python3 "$PMT_TOP/tests/format-keys.py" "$PMT_TOP/formats/FORMAT.md" >"$T/names"
nrec=$(grep -c '^record ' "$T/names"); nmeta=$(grep -c '^meta ' "$T/names"); nver=$(grep -c '^version ' "$T/names")
# FORMAT.md names at least the 12 record types and 5 versions of 2.0 (a broken extractor finds none)
if [ "$nrec" -ge 12 ] && [ "$nmeta" -ge 25 ] && [ "$nver" -ge 5 ]; then
	ok "FORMAT.md names $nrec record types, $nmeta META keys, $nver versions"
else not_ok "FORMAT.md's names extracted" "$(cat "$T/names")"; fi

# groff escapes a '-' or '_' nowhere in these names, so the source text is searched as is
missing=""
while read -r kind name code; do
	case $kind in
	record) grep -q "^\.B $name ($code" "$man5" || missing="$missing record:$name($code)" ;;
	# a top-level key heads an entry; a nested one FORMAT.md mentions in prose is named in one
	meta) grep -Eq "^\.B ([a-z_]+, )*$name(,|\$)|[a-z_]\.$name\b" "$man5" || missing="$missing meta:$name" ;;
	version) grep -q "^\.B $name\$" "$man5" || missing="$missing version:$name" ;;
	esac
done <"$T/names"
if [ -z "$missing" ]; then ok "pmtrace.5 describes every record type, META key and version of FORMAT.md"
else not_ok "pmtrace.5 describes every record type, META key and version of FORMAT.md" "missing:$missing"; fi

# the WARNING codes: warnings.def's, no more, no fewer, in FORMAT.md and in pmtrace.5
sed -n 's/^PMC_WARNING([A-Z_0-9]*, "\([a-z0-9-]*\)".*/\1/p' "$PMT_TOP/collector/sources/warnings.def" |
	sort >"$T/codes.def"
sed -n 's/^warning //p' "$T/names" | sort >"$T/codes.md"
nomen=""
while read -r code; do grep -qw -- "$code" "$man5" || nomen="$nomen $code"; done <"$T/codes.def"
if [ "$(wc -l <"$T/codes.def")" -ge 10 ] && cmp -s "$T/codes.def" "$T/codes.md" && [ -z "$nomen" ]; then
	ok "FORMAT.md and pmtrace.5 list the $(wc -l <"$T/codes.def") WARNING codes of warnings.def"
else not_ok "FORMAT.md and pmtrace.5 list the WARNING codes of warnings.def" \
	"$(diff "$T/codes.def" "$T/codes.md")" "not in pmtrace.5:$nomen"; fi

# the format version the writer writes is the newest one described
v=$(sed -n 's/^#define PMT_FORMAT_MAJOR \([0-9]*\)$/\1/p' "$PMT_TOP/formats/pmt.h").$(sed -n 's/^#define PMT_FORMAT_MINOR \([0-9]*\)$/\1/p' "$PMT_TOP/formats/pmt.h")
if grep -q "^Version $v (" "$PMT_TOP/formats/FORMAT.md" && grep -q "^\.B $v\$" "$man5" &&
   [ "$(grep '^version ' "$T/names" | head -1)" = "version $v" ]; then
	ok "FORMAT.md and pmtrace.5 both describe the writer's version $v"
else not_ok "FORMAT.md and pmtrace.5 both describe the writer's version $v" "$(grep '^version ' "$T/names" | head -1)"; fi

if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man --warnings -l "$man5" >"$T/man.out" 2>"$T/man.err"; rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$T/man.err" ] && grep -q "skippable" "$T/man.out"; then ok "pmtrace.5 renders without warnings"
	else not_ok "pmtrace.5 renders without warnings" "exit $rc" "$(head -5 "$T/man.err")"; fi
else
	skip "pmtrace.5 renders without warnings" "man is not installed"
fi

done_testing
