#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages render cleanly: docs/pmcollect.1, docs/pmanalyze.1 and docs/pmtrace.5 hold no
# control character (a "\f" written through a string escape once became a form feed, which
# groff drops: "-E, --estimator Bsched-exactR|..."), `groff -man -Tutf8 -ww` prints no warning,
# and the rendered text holds no stray font letters (Bword R, fBword, a literal \f). The check is
# shown to fail on a page with each of these faults. The estimator names the pages give are the
# ones pmanalyze accepts. groff is Debian's groff-base (.ci/deps.sh).
. "$PMT_TOP/tests/cli/lib.sh"

if ! command -v groff >/dev/null 2>&1; then
	skip "the man pages render cleanly" "groff is not installed (Debian package groff-base, .ci/deps.sh)"
	done_testing
	exit 0
fi

# render PAGE: the plain text (no bold, underline or overstrike) in $T/txt, groff's stderr in
# $T/gerr; returns groff's exit status
render() { groff -man -Tutf8 -ww -P-cbou "$1" >"$T/txt" 2>"$T/gerr"; }

# check_page PAGE: prints one line per fault (none: the page is clean)
check_page() {
	tr -d '\t' <"$1" | LC_ALL=C grep -n '[[:cntrl:]]' | cut -c1-80 | sed 's/^/control character: line /'
	render "$1"; grc=$?
	[ "$grc" -eq 0 ] || echo "groff exit status $grc"
	sed 's/^/groff: /' "$T/gerr"
	tr -d '\t' <"$T/txt" | LC_ALL=C grep -c '[[:cntrl:]]' | grep -v '^0$' | sed 's/$/ rendered lines with a control character/'
	# a font escape whose backslash was lost (Bname R, Iname R, fBname) or that printed as text;
	# a terminal shows the control character's line without it
	LC_ALL=C tr -d '\000-\010\013-\037' <"$T/txt" |
		grep -nE '(^|[^[:alnum:]])[BI][a-z][^[:space:]|]*[a-z0-9]R([^[:alnum:]]|$)|(^|[^[:alnum:]])f[BIRP][a-z-]|\\f' |
		sed 's/^ */stray font letters: /'
}

for page in pmcollect.1 pmanalyze.1 pmtrace.5; do
	check_page "$PMT_TOP/docs/$page" >"$T/faults"
	render "$PMT_TOP/docs/$page"
	lines=$(wc -l <"$T/txt")
	# a page that rendered to nearly nothing would pass the checks above
	if [ ! -s "$T/faults" ] && [ "$lines" -ge 100 ]; then
		ok "$page renders cleanly with groff -man -Tutf8 -ww ($lines lines)"
	else not_ok "$page renders cleanly with groff -man -Tutf8 -ww" "$lines lines" "$(head -c 800 "$T/faults")"; fi
done

# the check finds each fault: a lost backslash, a form feed, a groff warning (undefined macro)
printf '.TH X 1\n.SH OPTIONS\n.TP\n.BR \\-E " Bsched\\-exactR|BpaperR"\nText.\n' >"$T/bad1.1"
printf '.TH X 1\n.SH OPTIONS\n.TP\n.BR \\-E " \fBsched\\-exact\\fR"\nText.\n' >"$T/bad2.1"
printf '.TH X 1\n.SH OPTIONS\n.XX\nText.\n' >"$T/bad3.1"
printf '.TH X 1\n.SH OPTIONS\n.TP\n.BR \\-E " \\fBsched\\-exact\\fR|\\fBpaper\\fR"\nText.\n' >"$T/good.1"
check_page "$T/bad1.1" >"$T/f1"; check_page "$T/bad2.1" >"$T/f2"; check_page "$T/bad3.1" >"$T/f3"
check_page "$T/good.1" >"$T/f4"
if grep -q '^stray font letters: .*Bsched-exactR|BpaperR' "$T/f1" && grep -q '^control character: line 4' "$T/f2" &&
   grep -q "^groff: .*XX" "$T/f3" && [ ! -s "$T/f4" ]; then
	ok "the check finds stray font letters, a control character and a groff warning, and passes a clean page"
else not_ok "the check finds each fault" "lost backslash: $(cat "$T/f1")" "form feed: $(cat "$T/f2")" \
	"undefined macro: $(cat "$T/f3")" "clean page: $(cat "$T/f4")"; fi

# the estimator names: those pmanalyze accepts (its error line for an unknown one) are the ones
# pmanalyze.1 lists in its SYNOPSIS and its -E item, and pmcollect.1 names no other
run_capture "$PMT_BIN/pmanalyze" -E bogus x.zst
names=$(sed -n "s/^pmanalyze: error: invalid --estimator 'bogus': want //p" "$T/err" | sed 's/,\| or / /g')
want=$(printf '%s\n' $names | paste -sd'|' -)
render "$PMT_TOP/docs/pmanalyze.1"
tr -s ' \n' ' ' <"$T/txt" >"$T/flat"
if [ "$(printf '%s\n' $names | wc -l)" -ge 4 ] && grep -qF -- "[--estimator $want]" "$T/flat" &&
   grep -qF -- "-E, --estimator $want " "$T/flat"; then
	ok "pmanalyze.1's SYNOPSIS and -E list the estimators pmanalyze accepts ($want)"
else not_ok "pmanalyze.1's SYNOPSIS and -E list the estimators pmanalyze accepts" "accepted: $want" \
	"$(grep -o -- '--estimator [^ ]*' "$T/flat" | head -3)" "$(diag)"; fi
render "$PMT_TOP/docs/pmcollect.1"
tr -s ' \n' ' ' <"$T/txt" | sed 's/‐ //g' >"$T/flat"
named=$(grep -oE '\(estimator [a-z-]+\)|the [a-z-]+ estimator' "$T/flat" | sed 's/(estimator \(.*\))/\1/; s/^the //; s/ estimator$//' |
	grep -vx 'sampled' | sort -u)
bad=""
for n in $named; do printf '%s\n' $names | grep -qx -- "$n" || bad="$bad $n"; done
if [ -n "$named" ] && [ -z "$bad" ]; then ok "pmcollect.1 names estimators pmanalyze accepts ($(echo $named))"
else not_ok "pmcollect.1 names estimators pmanalyze accepts" "named: $(echo $named)" "not accepted:$bad"; fi

done_testing
