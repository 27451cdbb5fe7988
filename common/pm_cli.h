/* SPDX-License-Identifier: MIT */
/* pm_cli.h: helpers shared by the two front ends (pmcollect, pmanalyze): the one error reporter
 * in git's grammar, sanitizing of untrusted strings, and CPU/core list parsing. Unlike pmt.h,
 * pm_cli_report() prints (to stderr): only the tools' main files and option parsers call it. */
#ifndef PM_CLI_H
#define PM_CLI_H

#include <stddef.h>
#include <stdint.h>

/* Exit codes of both tools (docs/pmcollect.1, docs/pmanalyze.1). */
/* Version of pmcollect and pmanalyze (one release of both; -V, and "tool_version" in META). */
#define PMT_TOOLS_VERSION "0.1.0"

#define PMT_EXIT_OK 0
#define PMT_EXIT_FAILURE 1 /* runtime failure: bad data, I/O error */
#define PMT_EXIT_USAGE 2   /* bad command line */

/* Sets the program name used as the prefix of every message ("pmcollect"). */
void pm_cli_set_prog(const char *prog);
const char *pm_cli_prog(void);

/* Prints "<prog>: <level>: <message>\n" to stderr, where level is "error" or "warning".
 * The formatted message is passed through pm_cli_sanitize() so control characters that came from
 * a trace or a process name cannot reach the terminal. One line, no capital, no full stop. */
void pm_cli_report(const char *level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A mistake in the command line itself: prints the error line as pm_cli_report("error", ...)
 * does, then the usage text (a final newline is added when missing), and returns PMT_EXIT_USAGE. */
int pm_cli_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pm_cli_error(...) pm_cli_report("error", __VA_ARGS__)
#define pm_cli_warning(...) pm_cli_report("warning", __VA_ARGS__)

/* Copies at most srclen bytes of src into dst (size dstsize > 0, always NUL-terminated), replacing
 * bytes < 0x20, 0x7f, and invalid UTF-8 with '?'. Returns dst. */
char *pm_cli_sanitize(char *dst, size_t dstsize, const char *src, size_t srclen);

/* Parses s as a whole decimal integer in [lo, hi] into *out. Returns 0, or -1 (not a number,
 * trailing characters, out of range) leaving *out alone; the caller words the error. */
int pm_cli_parse_long(const char *s, long lo, long hi, long *out);

/* Parses [s, end) as a time with its unit (us, ms, s: "20ms", "1.5s") into *ns. Returns 0, or -1
 * (not a number, negative, no or another unit) leaving *ns alone. */
int pm_cli_parse_time_ns(const char *s, const char *end, double *ns);

/* A set of non-negative integers (CPUs or core counts) as a sorted, deduplicated array. */
struct pm_intlist {
	uint32_t *v;
	size_t n;
};

/* Parses a list in the kernel's cpulist syntax extended with strides: "0", "0-3,8", "1-64:4"
 * (1, 5, 9, ..., 61), "1,2,4,8". Values must be in [min_value, max_value]; a range must not run
 * backwards. On success fills *out (caller frees out->v with free()) and returns 0; on error returns
 * -1 and writes a one-line reason (e.g. "range '5-2' runs backwards") into why (size whysize).
 * At most 1,000,000 values. Source: the cpulist format of cpuset(7) "List format". */
int pm_intlist_parse(const char *s, uint32_t min_value, uint32_t max_value,
		      struct pm_intlist *out, char *why, size_t whysize);

/* Formats a sorted list back into cpulist syntax ("0-3,8") in buf; returns buf. */
char *pm_intlist_format(const struct pm_intlist *l, char *buf, size_t bufsize);

void pm_intlist_free(struct pm_intlist *l);

#endif
