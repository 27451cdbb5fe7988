#!/bin/sh
# SPDX-License-Identifier: MIT
# A trace that could not be finished is always reported, whatever the program's own status (issue
# 12 part 4): pmcollect exits 1 with one "cannot write" line naming the errno of the failed call,
# also when the program itself exits 1 (the old main() took "status 1" for "already reported").
# Faults: close(2) of the trace fails (an LD_PRELOAD shim built here, as NFS or a quota can do at
# close), and the output file system fills up while the program runs.
. "$PMT_TOP/tests/cli/lib.sh"

# one_write_error NAME: exit 1 and exactly one "cannot write" line naming the file and errno text
one_write_error() {
	expect_status "$1: exit 1" 1
	expect_err_line "$1: one error line" "^pmcollect: error: cannot write '.*$2': $3$"
}

# --- close(2) of the trace fails with EIO -------------------------------------------------------
cat >"$T/failclose.c" <<'SHIM'
/* close() that fails with EIO, after closing, for the file named by $FAILCLOSE_PATH */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int close(int fd)
{
	static int (*real_close)(int);
	const char *want = getenv("FAILCLOSE_PATH");
	char link[64], path[PATH_MAX];
	ssize_t n;
	int hit = 0;

	if (!real_close)
		real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (want && (n = readlink(link, path, sizeof(path) - 1)) > 0) {
		path[n] = '\0';
		hit = strcmp(path, want) == 0;
	}
	if (real_close(fd) < 0)
		return -1;
	if (hit)
		errno = EIO;
	return hit ? -1 : 0;
}
SHIM
if cc -shared -fPIC -o "$T/failclose.so" "$T/failclose.c" -ldl 2>"$T/cc.err"; then
	for code in 1 0 3; do
		rm -f "$T/close.zst"
		# under AddressSanitizer the shim comes before the ASan runtime: allow that
		run_capture env FAILCLOSE_PATH="$T/close.zst" LD_PRELOAD="$T/failclose.so" \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
			"$PMCOLLECT" -q -o "$T/close.zst" -- sh -c "exit $code"
		one_write_error "close fails, program exits $code" close.zst "Input/output error"
	done
	# the trace itself is complete: the failure came after the last byte
	check "close fails: the trace is still readable" "$PMANALYZE" --dump "$T/close.zst"
else
	ok "close fails # SKIP cannot build the shim: $(head -1 "$T/cc.err")"
fi

# --- the output file system fills up, the program exits 1 ---------------------------------------
mkdir -p "$T/full"
if mount -t tmpfs -o size=1m,mode=0755 pmtfull1210 "$T/full" 2>"$T/mount.err"; then
	# the program fills the file system itself, then runs past the once-a-second flush
	run_capture "$PMCOLLECT" -q -o "$T/full/full.zst" -- \
		sh -c "dd if=/dev/zero of='$T/full/fill' bs=4096 2>/dev/null; sleep 1.5; exit 1"
	umount "$T/full"
	one_write_error "file system full, program exits 1" full.zst "No space left on device"
else
	ok "file system full # SKIP cannot mount a tmpfs: $(head -1 "$T/mount.err")"
fi

done_testing
